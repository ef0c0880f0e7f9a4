"""An ordinary smolagents program: a ToolCallingAgent on an OpenAI-compatible server.

It knows nothing about rlfactory: the server is OPENAI_BASE_URL (with OPENAI_API_KEY), the model name
RLF_MODEL, the task comes on stdin, and the agent's final answer is printed. Run by
`rlf rollout agent`, every model call goes through the capture endpoint (docs/agents.md).

    python examples/agents/smolagents_tool_calling.py <<< 'What is 2+2?'
"""

import os
import sys

from smolagents import OpenAIServerModel, ToolCallingAgent


def main() -> None:
    task = sys.stdin.read().strip() or os.environ.get("RLF_PROMPT", "")
    model = OpenAIServerModel(
        model_id=os.environ.get("RLF_MODEL", "gpt-4o-mini"),
        api_base=os.environ["OPENAI_BASE_URL"],
        api_key=os.environ.get("OPENAI_API_KEY"),
    )
    agent = ToolCallingAgent(tools=[], model=model, max_steps=4, verbosity_level=0)
    print(agent.run(task))


if __name__ == "__main__":
    main()
