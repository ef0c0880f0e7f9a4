"""Which logprobs a trajectory holds (`logprobs_kind`, `sampling_temperature`) and what the adapters do
with raw logprobs sampled at a temperature other than 1: warn (verl, slime, SkyRL), refuse (TRL with its
vLLM importance-sampling correction on). (SkyRL's adapter must be imported after SkyRL's classes load:
test_skyrl.py; it calls the same `check_rollout_logprobs` as the one checked here.)"""

from __future__ import annotations

import dataclasses
import warnings
from types import SimpleNamespace

import pytest
from rlfactory_engines.client import RolloutServiceClient
from rlfactory_engines.logprobs import (
    RolloutLogprobsError,
    RolloutLogprobsWarning,
    check_rollout_logprobs,
    tempered_logprobs_problem,
)
from rlfactory_engines.records import Trajectory, TrajectoryRecordError
from rlfactory_engines.slime import fill_sample
from rlfactory_engines.trl import make_rollout_func
from rlfactory_engines.verl import agent_loop_fields
from support import recorded
from support.slime_sample import Sample
from test_trl import EOS, FakeService


def with_kind(t: Trajectory, kind: str | None, temperature: float | None) -> Trajectory:
    return dataclasses.replace(t, logprobs_kind=kind, sampling_temperature=temperature)


def test_the_record_carries_the_kind_and_temperature_and_refuses_an_unknown_kind():
    raw = dict(recorded.raw_trajectories("completed")[0])
    assert Trajectory.from_json(raw).logprobs_kind is None  # older services: not said
    t = Trajectory.from_json({**raw, "logprobs_kind": "processed", "sampling_temperature": 0.7})
    assert (t.logprobs_kind, t.sampling_temperature) == ("processed", 0.7)
    with pytest.raises(TrajectoryRecordError, match="logprobs_kind"):
        Trajectory.from_json({**raw, "logprobs_kind": "processed_logits"})


def test_only_raw_logprobs_at_a_temperature_other_than_one_are_a_problem():
    t = recorded.trajectories("completed")[0]
    assert tempered_logprobs_problem(with_kind(t, "processed", 0.7)) is None
    assert tempered_logprobs_problem(with_kind(t, "raw", 1.0)) is None
    assert tempered_logprobs_problem(with_kind(t, None, 0.7)) is None
    problem = tempered_logprobs_problem(with_kind(t, "raw", 0.7))
    assert problem is not None and "temperature 0.7" in problem and "processed_logprobs" in problem


def test_one_warning_per_batch_naming_the_engine():
    ts = [with_kind(t, "raw", 0.7) for t in recorded.trajectories("completed")]
    assert len(ts) > 1
    with pytest.warns(RolloutLogprobsWarning, match="SkyRL: .*raw.*temperature 0.7") as caught:
        check_rollout_logprobs(ts, "SkyRL")
    assert len(caught) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_rollout_logprobs([with_kind(t, "processed", 0.7) for t in ts], "SkyRL")
        check_rollout_logprobs([with_kind(t, "raw", 1.0) for t in ts], "SkyRL")


def test_verl_and_slime_warn_and_still_pass_the_logprobs_unchanged():
    t = with_kind(recorded.trajectories("completed")[0], "raw", 0.7)
    with pytest.warns(RolloutLogprobsWarning, match="verl: "):
        fields = agent_loop_fields(t)
    assert fields["response_logprobs"] == t.rollout_logprobs
    with pytest.warns(RolloutLogprobsWarning, match="slime: "):
        sample = fill_sample(Sample(), t)
    assert sample.rollout_log_probs == t.rollout_logprobs
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        agent_loop_fields(with_kind(t, "processed", 0.7))


def trainer(n: int, correction: bool) -> SimpleNamespace:
    return SimpleNamespace(
        model=SimpleNamespace(training=True),
        num_generations=n,
        num_generations_eval=n,
        state=SimpleNamespace(global_step=1),
        temperature=0.7,
        max_completion_length=64,
        eos_token_ids=[EOS],
        args=SimpleNamespace(use_vllm=True, vllm_importance_sampling_correction=correction),
    )


@pytest.mark.parametrize("kind", ["raw", "processed"])
def test_trl_refuses_raw_logprobs_at_another_temperature_when_it_corrects_importance_sampling(kind):
    service = FakeService("completed")
    for g in service.groups:
        g.trajectories[:] = [with_kind(t, kind, 0.7) for t in g.trajectories]
    n = len(service.groups[0].trajectories)
    func = make_rollout_func(inference_urls=["http://gpu-0:8000"], client=service)
    if kind == "raw":
        with pytest.raises(RolloutLogprobsError, match="TRL: .*inference.logprobs_mode: processed"):
            func(["q"] * n, trainer(n, correction=True))
        with pytest.warns(RolloutLogprobsWarning):
            out = func(["q"] * n, trainer(n, correction=False))
    else:
        out = func(["q"] * n, trainer(n, correction=True))
    assert out["logprobs"] == [t.rollout_logprobs for t in service.groups[0].trajectories]


def test_a_request_says_what_its_own_servers_return():
    body = RolloutServiceClient._request_body(
        [{"id": "a", "prompt": "hi"}], inference_urls=["http://gpu-0:8000"], inference_logprobs_mode="processed"
    )
    assert body["inference"] == {"urls": ["http://gpu-0:8000"], "logprobs_mode": "processed"}
    service = FakeService("completed")
    n = len(service.groups[0].trajectories)
    func = make_rollout_func(inference_urls=["http://gpu-0:8000"], inference_logprobs_mode="processed", client=service)
    func(["q"] * n, trainer(n, correction=True))
    assert service.calls[1][2]["inference_logprobs_mode"] == "processed"
