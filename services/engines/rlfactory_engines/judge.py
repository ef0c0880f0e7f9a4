"""HTTP client of the rlfactory judge service (`rlf judge`, `POST /v1/judge`; services/judge/README.md).

A judgment is a score in [0, 1] with metadata, or a typed failure (`JudgeError.code`: PARSE_ERROR,
BACKEND_UNAVAILABLE, TIMEOUT, ...): never a silent 0. What a failure means is the caller's choice.
`judge_request` builds the same request the rollout's own judge reward sends (`GrpcJudge`): `reference`
mode when there are gold answers (joined by " | "), else `pointwise`; `rule` mode with a grader.
Standard library only.
"""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any

DEFAULT_JUDGE_URL = "http://127.0.0.1:7005"

#: The last `<answer>...</answer>` of a response: what the judge grades by default.
ANSWER_PATTERN = r"<answer>(.*?)</answer>"


class JudgeError(RuntimeError):
    """A judgment that failed: the service's typed code (or UNAVAILABLE / BAD_RESPONSE / HTTP_ERROR)."""

    def __init__(self, code: str, message: str, status: int | None = None):
        super().__init__(f"judge {code}: {message}")
        self.code = code
        self.status = status


@dataclass(frozen=True)
class Judgment:
    score: float
    metadata: dict[str, Any] = field(default_factory=dict)


def gold_answers(ground_truth: Any) -> list[str]:
    """Gold answers of a QA ground truth: a string, a list, or Search-R1's {"target": [...]}."""
    if isinstance(ground_truth, str):
        return [ground_truth]
    if isinstance(ground_truth, dict) and "target" in ground_truth:
        return gold_answers(ground_truth["target"])
    if isinstance(ground_truth, (list, tuple)):
        return [g for g in ground_truth if isinstance(g, str)]
    return []


def final_answer(text: str, pattern: str | None = ANSWER_PATTERN) -> str:
    """The last match of `pattern` in `text` (group 1), or the whole text stripped when none matches."""
    if pattern:
        matches = re.findall(pattern, text, flags=re.DOTALL)
        if matches:
            last = matches[-1]
            return (last if isinstance(last, str) else last[0]).strip()
    return text.strip()


def judge_request(
    *,
    task: str,
    response: str,
    ground_truth: Any = None,
    rubric: str | None = None,
    rubric_id: str | None = None,
    deadline_ms: int | None = None,
) -> dict[str, Any]:
    """A model judgment (`reference` mode with gold answers, else `pointwise`), as `GrpcJudge` sends it."""
    if not task:
        raise ValueError("a model judgment needs the task (the question); pass task= or extra_info['question']")
    golds = gold_answers(ground_truth)
    body: dict[str, Any] = {"mode": "reference" if golds else "pointwise", "task": task, "response": response}
    if golds:
        body["reference"] = " | ".join(golds)
    if rubric is not None:
        body["rubric"] = rubric
    if rubric_id is not None:
        body["rubric_id"] = rubric_id
    if deadline_ms:
        body["deadline_ms"] = int(deadline_ms)
    return body


def rule_requests(*, response: str, ground_truth: Any, grader: dict[str, Any], task: str = "") -> list[dict[str, Any]]:
    """Rule-grader requests: one per gold answer (the caller keeps the best), or one without a reference."""
    base: dict[str, Any] = {"mode": "rule", "response": response, "grader": grader}
    if task:
        base["task"] = task
    golds = gold_answers(ground_truth)
    return [{**base, "reference": g} for g in golds] or [base]


class JudgeClient:
    def __init__(self, base_url: str = DEFAULT_JUDGE_URL, *, timeout_s: float = 120.0):
        self.endpoint = base_url.rstrip("/") + "/v1/judge"
        self.timeout_s = timeout_s

    def judge(self, body: dict[str, Any]) -> Judgment:
        request = urllib.request.Request(
            self.endpoint,
            data=json.dumps(body).encode(),
            headers={"content-type": "application/json", "accept": "application/json"},
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                answer = json.loads(response.read())
        except urllib.error.HTTPError as e:
            text = e.read().decode(errors="replace")
            try:
                error = json.loads(text).get("error")
            except (ValueError, AttributeError):
                error = None
            if isinstance(error, dict) and isinstance(error.get("code"), str):
                raise JudgeError(error["code"], str(error.get("message", "")), e.code) from None
            raise JudgeError("HTTP_ERROR", f"{self.endpoint} answered {e.code}: {text[:200]}", e.code) from None
        except (urllib.error.URLError, OSError) as e:
            raise JudgeError("UNAVAILABLE", f"cannot reach {self.endpoint}: {getattr(e, 'reason', e)}") from None
        except ValueError:
            raise JudgeError("BAD_RESPONSE", f"{self.endpoint} answered something that is not JSON") from None
        score = answer.get("score") if isinstance(answer, dict) else None
        if not isinstance(score, (int, float)) or isinstance(score, bool) or not 0 <= score <= 1:
            raise JudgeError("BAD_RESPONSE", f"{self.endpoint} answered no score in [0, 1]: {str(answer)[:200]}")
        return Judgment(float(score), {k: v for k, v in answer.items() if k != "score"})
