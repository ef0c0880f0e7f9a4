"""A small verifiers environment for the e2e tests of ``rlf env verifiers``, written with the installed
``verifiers`` package (0.4, ``verifiers.v1``): a taskset of counting tasks (reach ``target``), a per-rollout
``Toolset`` whose tools keep the count in the rollout's ``State``, and a task whose ``@vf.reward`` pays 1
when the count equals the target (its rubric)."""

import verifiers.v1 as vf


class CounterState(vf.State):
    count: int = 0
    history: list[int] = []


class CounterData(vf.TaskData):
    target: int


class CounterToolset(vf.Toolset[vf.ToolsetConfig, CounterState]):
    TOOL_PREFIX = "counter"

    @vf.tool
    def add(self, amount: int) -> str:
        """Add amount to the count and return the new count."""
        self.state.count += amount
        self.state.history.append(amount)
        return f"count is {self.state.count}"

    @vf.tool
    async def read(self) -> int:
        """The current count."""
        return self.state.count


class CounterTaskConfig(vf.TaskConfig):
    tools: vf.ToolsetConfig = vf.ToolsetConfig()


class CounterTask(vf.Task[CounterData, CounterState, CounterTaskConfig]):
    @classmethod
    def toolsets(cls, config: CounterTaskConfig) -> list[vf.Toolset]:
        return [CounterToolset(config.tools)]

    @vf.reward(weight=1.0)
    async def reached(self, trace: vf.Trace) -> float:
        return 1.0 if trace.state.count == self.data.target else 0.0

    @vf.metric
    async def steps(self, trace: vf.Trace) -> float:
        return float(len(trace.state.history))


class CounterConfig(vf.TasksetConfig):
    targets: list[int] = [3, 5]
    first_step: int | None = None
    """The amount the prompt's last line asks for (``call: {"amount": N}``, what the simulated LLM's
    ``converse`` policy calls the tool with); default the target."""
    task: CounterTaskConfig = CounterTaskConfig()


class CounterTaskset(vf.Taskset[CounterTask, CounterConfig]):
    def prompt(self, target: int) -> str:
        step = self.config.first_step if self.config.first_step is not None else target
        return f'Count to {target} with the add tool.\ncall: {{"amount": {step}}}'

    def load(self) -> list[CounterTask]:
        return [
            CounterTask(CounterData(id=f"count-to-{t}", prompt=self.prompt(t), target=t), self.config.task)
            for t in self.config.targets
        ]
