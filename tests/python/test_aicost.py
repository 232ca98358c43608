"""The Python module against the CLI: same JSON for the same plan, errors as exceptions with
their place in the file, the GIL released while a search runs, Ctrl-C stopping a search.

Run by ctest (python.pytest) with PYTHONPATH=build/python and AICOST_BIN=the CLI, from the
repository root. Temporary files live in a TemporaryDirectory removed by each test."""

import json
import os
import signal
import subprocess
import tempfile
import threading

import pytest

import aicost

ROOT = os.getcwd()
AICOST = os.environ.get("AICOST_BIN", os.path.join(ROOT, "build/apps/aicost/aicost"))
GPT3 = "examples/gpt3-175b-a100.yaml"
SERVING = "examples/serving-llama3-70b-chat.yaml"
SEARCH_SMALL = "tests/plans/search_small.yaml"
SEARCH_BIG = "examples/search-llama3-70b-90days.yaml"
SEARCH_SWEEP = "bench/plans/gpt3-175b-sweep.yaml"


def cli_json(*args):
    """What `aicost ARGS -o json` prints, parsed; its exit code must be 0."""
    out = subprocess.run([AICOST, *args, "-o", "json"], cwd=ROOT, capture_output=True, check=True)
    return json.loads(out.stdout)


def serialised(value):
    return json.dumps(value, indent=2, ensure_ascii=False).encode()


def same_as_cli(result, *args):
    assert serialised(result) == serialised(cli_json(*args))


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


# A plan written three ways: the dict, its YAML and a file. Llama 3 8B on 64 H100s (names as in
# tests/plans/search_small.yaml).
SMALL_PLAN = {
    "name": "py-small",
    "model": {"preset": "llama3-8b"},
    "training": {"tokens": "100B", "seq_length": 8192, "global_batch_size": 256, "precision": "bf16"},
    "cluster": {"gpu": "h100-sxm-80gb", "gpus": 64},
    "parallelism": {"tensor_model_parallel_size": 4, "pipeline_model_parallel_size": 1,
                    "micro_batch_size": 1},
    "pricing": {"gpu_hour": "2.50USD/h"},
}
SMALL_YAML = """name: py-small
model:
  preset: llama3-8b
training:
  tokens: 100B
  seq_length: 8192
  global_batch_size: 256
  precision: bf16
cluster:
  gpu: h100-sxm-80gb
  gpus: 64
parallelism:
  tensor_model_parallel_size: 4
  pipeline_model_parallel_size: 1
  micro_batch_size: 1
pricing:
  gpu_hour: 2.50USD/h
"""


def test_estimate_training_matches_cli():
    same_as_cli(aicost.estimate(GPT3), "estimate", GPT3)


def test_estimate_serving_matches_cli():
    result = aicost.estimate(SERVING)
    assert "sla" in result and "training" not in result  # the serving report, not a training one
    same_as_cli(result, "estimate", SERVING)


def test_dict_yaml_and_path_give_the_cli_json():
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "small.yaml")
        with open(path, "w", encoding="utf-8") as f:
            f.write(SMALL_YAML)
        from_cli = serialised(cli_json("estimate", path))
        assert serialised(aicost.estimate(path)) == from_cli
        assert serialised(aicost.estimate(SMALL_YAML)) == from_cli
        assert serialised(aicost.estimate(SMALL_PLAN)) == from_cli


def test_path_like_and_text_of_a_file_agree():
    import pathlib
    assert aicost.estimate(pathlib.Path(GPT3)) == aicost.estimate(read(GPT3))


def test_estimate_simulate_matches_cli():
    same_as_cli(aicost.estimate(GPT3, simulate=50, seed=7), "estimate", GPT3, "--simulate", "50", "--seed", "7")


def test_diff_matches_cli():
    b = "tests/plans/gpt3-175b-a100-fullrecompute.yaml"
    same_as_cli(aicost.diff(GPT3, b), "diff", GPT3, b)


def test_search_matches_cli():
    same_as_cli(aicost.search(SEARCH_SMALL, threads=2), "search", SEARCH_SMALL, "--threads", "2")


def test_search_progress_callback_reaches_one():
    shares = []
    aicost.search(SEARCH_SMALL, threads=1, progress=shares.append)
    assert shares and shares[-1] == 1.0
    assert all(0 <= s <= 1 for s in shares)


def test_reliability_matches_cli():
    same_as_cli(aicost.reliability(GPT3, simulate=100, seed=3), "reliability", GPT3, "--simulate", "100",
                "--seed", "3")


def test_optimize_matches_cli():
    plan = "tests/plans/optimize-llama3-8b-h100.yaml"
    same_as_cli(aicost.optimize(plan, guardrails="examples/guardrails.yaml"), "optimize", plan,
                "--guardrails", "examples/guardrails.yaml")


def test_optimize_guardrails_as_text():
    plan = "tests/plans/optimize-llama3-8b-h100.yaml"
    from_text = aicost.optimize(plan, guardrails=read("examples/guardrails.yaml"))
    from_file = aicost.optimize(plan, guardrails="examples/guardrails.yaml")
    # The red lines name where they came from; everything else is the same.
    assert from_text["guardrails"].pop("source") == "<guardrails>"
    assert from_file["guardrails"].pop("source") == "examples/guardrails.yaml"
    assert from_text == from_file


def test_validate_matches_cli():
    csv = "data/validation/training-dev.csv"
    same_as_cli(aicost.validate(csv), "validate", csv)


def test_catalog_lists_match_cli():
    for what in ("gpus", "instances", "models"):
        rows = getattr(aicost.catalog, what)(frame=False)
        same_as_cli(rows, "catalog", what)


def test_catalog_dataframe_round_trip():
    pandas = pytest.importorskip("pandas")  # Debian python3-pandas: installed by install-deps.sh
    rows = aicost.catalog.gpus(frame=False)
    df = aicost.catalog.gpus()
    assert isinstance(df, pandas.DataFrame)
    assert len(df) == len(rows)
    back = json.loads(df.to_json(orient="records"))
    assert [r["id"] for r in back] == [r["id"] for r in rows]
    assert back[0] == json.loads(json.dumps(rows[0]))


def test_input_error_names_file_line_and_column():
    with pytest.raises(aicost.InputError) as info:
        aicost.estimate("tests/plans/bad_unknown_key.yaml")
    e = info.value
    assert e.file == "tests/plans/bad_unknown_key.yaml"
    assert e.line and e.line > 0 and e.col and e.col > 0
    assert "did you mean" in e.message.lower()
    # The CLI names the same place.
    out = subprocess.run([AICOST, "estimate", "tests/plans/bad_unknown_key.yaml", "-o", "json"], cwd=ROOT,
                         capture_output=True)
    err = json.loads(out.stderr)["error"]
    assert (err["file"], err["line"], err["column"], err["message"]) == (e.file, e.line, e.col, e.message)


def test_yaml_text_errors_point_into_the_text():
    text = SMALL_YAML.replace("  seq_length: 8192\n", "  seq_length: 8192\n  sequence_lenght: 8\n")
    with pytest.raises(aicost.InputError) as info:
        aicost.estimate(text)
    assert info.value.file == "<plan>"
    assert (info.value.line, info.value.col) == (7, 3)  # the misspelt key in `text`


def test_out_of_memory_is_its_own_exception():
    with pytest.raises(aicost.OutOfMemory) as info:
        aicost.estimate("tests/plans/bad_out_of_memory.yaml")
    assert "does not fit in GPU memory" in info.value.message
    assert isinstance(info.value, aicost.Infeasible)
    assert aicost.estimate("tests/plans/bad_out_of_memory.yaml", allow_oom=True)["warnings"]


def test_unknown_gpu_and_missing_file():
    with pytest.raises(aicost.NotFound):
        aicost.estimate("tests/plans/bad_unknown_gpu.yaml")
    with pytest.raises(aicost.IoError) as info:
        aicost.estimate("tests/plans/no-such-plan.yaml")
    assert info.value.context == "tests/plans/no-such-plan.yaml"
    with pytest.raises(aicost.ParseError):
        aicost.estimate("tests/plans/bad_malformed.yaml")
    with pytest.raises(TypeError):
        aicost.estimate(42)


def test_search_releases_the_gil():
    # The search runs on another thread; this one counts loop turns between the search's first
    # progress report and its end. Were the GIL held through the search, this thread could not run
    # at all in that time.
    started = threading.Event()
    result = {}

    def run():
        result["out"] = aicost.search(SEARCH_BIG, threads=1, progress=lambda share: started.set())

    t = threading.Thread(target=run)
    t.start()
    assert started.wait(60)
    turns = 0
    while t.is_alive():
        turns += 1
    t.join()
    assert turns > 1000
    assert result["out"]["top"]


def test_ctrl_c_stops_a_search():
    # The interrupt comes from another thread as soon as the search reports progress, so it lands
    # while the search runs in C++ (a timer of 0.3 s raced the example's search, 0.36 s of CPU
    # since pruning, and lost on a quiet machine). The GPT-3 sweep takes 1.5 s of CPU on one thread.
    started = threading.Event()
    killer = threading.Thread(target=lambda: started.wait(60) and os.kill(os.getpid(), signal.SIGINT))
    killer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            aicost.search(SEARCH_SWEEP, threads=1, progress=lambda share: started.set())
    finally:
        started.set()
        killer.join()
    # The module is still usable after the interrupted search.
    assert aicost.search(SEARCH_SMALL, threads=1)["top"]


def test_ctrl_c_stops_a_simulation():
    # Four million runs on one thread take half a minute and more (0.17 s per 20,000 on an idle
    # core); the interrupt comes after 0.3 s and the call must end long before the runs would.
    # Without the cancel flag the KeyboardInterrupt would come only after the last run. The bound
    # is on the process's CPU time, not the wall clock: on a loaded machine (load 11 on 2 cores)
    # the wall clock stretched a cancelled call past 10 s, while all the runs need 30 s of CPU.
    import time
    for call in (lambda: aicost.reliability(GPT3, simulate=4_000_000, threads=1),
                 lambda: aicost.estimate(GPT3, simulate=4_000_000)):
        timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
        start = time.process_time()
        timer.start()
        try:
            with pytest.raises(KeyboardInterrupt):
                call()
        finally:
            timer.cancel()
        assert time.process_time() - start < 10
    # The module is still usable, and a simulation that is not interrupted gives the CLI's result.
    same_as_cli(aicost.reliability(GPT3, simulate=100, seed=3), "reliability", GPT3, "--simulate", "100",
                "--seed", "3")


def test_readme_example_runs():
    # The README's Python section, as written there.
    text = read("README.md")
    start = text.index("```python\n", text.index("## Python")) + len("```python\n")
    code = text[start:text.index("```", start)]
    exec(compile(code, "README.md", "exec"), {})
