"""analyze's progress lines (from Spark's status tracker): stages, tasks, elapsed, an estimate."""

from __future__ import annotations

from artemis_routing_cli.pipeline.progress import Stage, describe, snapshot


class Tracker:
    """The two calls of pyspark's StatusTracker that progress reads, answering fixed stages."""

    def __init__(self, stages: dict[int, tuple[str, int, int, int]]) -> None:
        self.stages = stages

    def getActiveStageIds(self) -> list[int]:  # noqa: N802 (pyspark's name)
        return list(self.stages)

    def getStageInfo(self, sid: int):  # noqa: ANN201, N802
        from types import SimpleNamespace

        name, tasks, done, active = self.stages[sid]
        return SimpleNamespace(name=name, numTasks=tasks, numCompletedTasks=done, numActiveTasks=active)


def test_a_line_says_tasks_elapsed_and_what_is_left() -> None:
    stages = snapshot(Tracker({7: ("mapInPandas", 8, 2, 2), 3: ("scan", 4, 4, 0)}))
    assert [s.stage_id for s in stages] == [3, 7]
    assert describe(stages, 90.0) == "stages 3, 7: 6/12 tasks done, 2 running, 1m30s elapsed, about 1m30s left"


def test_nothing_running_prints_nothing_and_no_estimate_before_the_first_task() -> None:
    assert describe([], 5.0) is None
    assert describe([Stage(1, "x", 4, 0, 2)], 3.0) == "stage 1: 0/4 tasks done, 2 running, 3s elapsed"


def test_the_real_tracker_after_a_job_has_no_running_stage(spark) -> None:
    spark.range(10).count()
    assert snapshot(spark.sparkContext.statusTracker()) == []
