"""The rollout-service client and the record parser: errors a caller can act on, invariants refused,
cancellation that reaches the service, and policy versions, against a live `rlf rollout serve`."""

from __future__ import annotations

import asyncio
import copy
import socket
import threading
import time

import pytest
from rlfactory_engines.client import (
    RolloutServiceClient,
    RolloutServiceError,
    make_task,
)
from rlfactory_engines.records import Trajectory, TrajectoryRecordError
from support import recorded
from support.live import live_stack


@pytest.fixture(scope="module")
def stack():
    return live_stack()


# --- records ----------------------------------------------------------------------------------------


def test_every_recorded_trajectory_parses_with_its_invariants():
    for scenario, t, raw in recorded.all_pairs():
        assert len(t.response_ids) == len(t.loss_mask) == len(t.rollout_logprobs), scenario
        assert t.num_turns == sum(1 for turn in raw["turns"] if turn["kind"] == "sampled")


@pytest.mark.parametrize(
    ("break_it", "message"),
    [
        (lambda r: r["loss_mask"].pop(), "mask values"),
        (lambda r: r["loss_mask"].__setitem__(0, 2), "not 0 or 1"),
        (lambda r: r.__setitem__("status", "exploded"), "status 'exploded'"),
        (lambda r: r.__setitem__("schema_version", 2), "schema_version 2"),
        (lambda r: r.__setitem__("prompt_ids", []), "prompt_ids is empty"),
        (lambda r: r["response_ids"].__setitem__(0, -1), "non-negative integer"),
        (lambda r: r.pop("status"), "missing field status"),
    ],
)
def test_a_record_that_breaks_the_contract_is_refused(break_it, message):
    raw = copy.deepcopy(recorded.raw_trajectories("completed")[0])
    break_it(raw)
    with pytest.raises(TrajectoryRecordError, match=message):
        Trajectory.from_json(raw)


def test_an_observation_token_with_a_logprob_is_refused():
    raw = copy.deepcopy(recorded.raw_trajectories("completed")[0])
    i = raw["loss_mask"].index(0)
    raw["rollout_logprobs"][i] = -0.5
    with pytest.raises(TrajectoryRecordError, match=rf"rollout_logprobs\[{i}\] is -0.5 on an observation token"):
        Trajectory.from_json(raw)


# --- errors -------------------------------------------------------------------------------------------


def test_an_unreachable_service_is_an_error_naming_it():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    client = RolloutServiceClient(f"http://127.0.0.1:{port}")
    with pytest.raises(RolloutServiceError, match=f"cannot reach the rollout service at http://127.0.0.1:{port}") as e:
        client.rollout([make_task("q", "hi")])
    assert e.value.status is None
    assert client.health() is False


def test_a_bad_request_is_the_services_400_message(stack):
    client = RolloutServiceClient(stack.service_url)
    with pytest.raises(RolloutServiceError, match="group_size: must be between 1 and 1024") as e:
        client.rollout([make_task("q", "hi")], group_size=0)
    assert e.value.status == 400
    with pytest.raises(ValueError, match="at least one task"):
        client.rollout([])


def test_policy_version_round_trip(stack):
    client = RolloutServiceClient(stack.service_url)
    assert client.health()
    state = client.set_policy_version(41)
    assert state["version"] == 41
    assert client.get_policy_version()["version"] == 41
    with pytest.raises(ValueError):
        client.set_policy_version("")


def test_streamed_groups_are_the_same_records(stack):
    client = RolloutServiceClient(stack.service_url)
    tasks = [make_task(f"s{i}", "Who directed Sinister?", ground_truth=["Scott Derrickson"]) for i in range(2)]
    groups = list(client.iter_rollout(tasks, group_size=2, policy_version=3))
    assert sorted(g.task_id for g in groups) == ["s0", "s1"]
    for g in groups:
        assert [t.sample_index for t in g.trajectories] == [0, 1]
        assert all(t.policy_version == 3 for t in g.trajectories)


# --- cancellation -------------------------------------------------------------------------------------


class HangingInferenceServer:
    """Accepts connections and never answers; counts the ones its peer closed."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.accepted = 0
        self.closed = 0
        threading.Thread(target=self._serve, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}"

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            threading.Thread(target=self._hold, args=(conn,), daemon=True).start()

    def _hold(self, conn):
        with conn:
            while conn.recv(65536):
                pass
        self.closed += 1

    def close(self):
        self.sock.close()


def wait_until(predicate, timeout_s=20.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def test_cancelling_arollout_aborts_the_request_at_the_service(stack):
    hanging = HangingInferenceServer()
    client = RolloutServiceClient(stack.service_url)

    async def scenario():
        call = asyncio.ensure_future(
            client.arollout(
                [make_task("c1", "Who directed Sinister?")], group_size=1, inference_urls=[hanging.url], model="policy"
            )
        )
        # the service is generating: its request to the (hanging) inference server is open
        assert await asyncio.to_thread(wait_until, lambda: hanging.accepted >= 1)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        # the service saw the caller go and aborted the trajectory: it hung up on the inference server
        # (well before its 60 s inference timeout would have)
        closed = await asyncio.to_thread(wait_until, lambda: hanging.closed >= 1, 20.0)
        assert closed, "the service kept generating after the caller left"

    try:
        asyncio.run(scenario())
    finally:
        hanging.close()
