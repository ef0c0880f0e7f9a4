"""verl agent loop, inference server and weight version found the way they are on a GPU host: through
verl's own Ray load balancer (`GlobalRequestLoadBalancer` behind an `LLMServerClient`), with no URL
configured.

A local Ray (CPU only) runs verl's real load balancer actor. The inference server it holds is a Ray
actor standing in for verl's `vLLMHttpServer`: it has what the adapter reads from one, a `global_steps`
attribute set through `set_global_steps` (verl's method name); its registered address is the
simulated inference server's `ip:port`, so the rollout really runs there. Ray start-up makes this the
slowest module (~10 s); deselect it with `-k "not ray"` when iterating.
"""

from __future__ import annotations

import asyncio

import pytest
from support.live import live_stack
from support.verl_loop import VERL_SAMPLING, agent_loop, dataset_row

ray = pytest.importorskip("ray", reason="verl's Ray is not installed")
agent_loop_module = pytest.importorskip("verl.experimental.agent_loop.agent_loop", reason="verl is not installed")


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield ray
    ray.shutdown()


@pytest.fixture(scope="module")
def stack():
    return live_stack()


def inference_server_actor() -> type:
    """Stands in for verl's vLLMHttpServer: only the weight version verl sets on it. (Defined in a
    function so that Ray ships the class by value: its workers cannot import test modules.)"""

    class InferenceServerActor:
        def __init__(self) -> None:
            self.global_steps = None

        async def set_global_steps(self, global_steps: int) -> None:
            self.global_steps = global_steps

    return InferenceServerActor


def test_the_agent_loop_runs_on_the_server_verls_load_balancer_assigns_with_its_weight_version(
    stack, local_ray, tmp_path
):
    np = pytest.importorskip("numpy")
    from verl.workers.rollout.llm_server import LLMServerClient
    from verl.workers.rollout.router import GlobalRequestLoadBalancer

    server = local_ray.remote(inference_server_actor()).remote()
    local_ray.get(server.set_global_steps.remote(17))
    address = stack.sim_url.removeprefix("http://")
    balancer = local_ray.remote(GlobalRequestLoadBalancer).remote(servers={address: server})
    client = LLMServerClient(config=None, load_balancer_handle=balancer)

    loop = agent_loop(agent_loop_module, tmp_path, server_manager=client, rollout_url=stack.service_url)
    assert loop.inference_urls == []
    output = asyncio.run(loop.run(dict(VERL_SAMPLING), **dataset_row(np)))

    assert output.extra_fields["rlf_status"] == "completed"
    assert output.extra_fields["rlf_policy_version"] == 17
    assert output.extra_fields["min_global_steps"] == output.extra_fields["max_global_steps"] == 17
    assert local_ray.get(balancer.get_total_inflight.remote()) == 0
