"""examples/notebooks/plan-optimize-ledger.ipynb runs from top to bottom with `jupyter nbconvert
--execute` (Debian jupyter-nbconvert, python3-ipykernel), offline, on a kernel of the Python this
suite runs under (the one the module is built for) with its PYTHONPATH, so that the notebook cannot
rot. Jupyter's and IPython's files go to a TemporaryDirectory, not the home directory."""

import json
import os
import subprocess
import sys
import tempfile

NOTEBOOK = os.path.join(os.getcwd(), "examples/notebooks/plan-optimize-ledger.ipynb")


def test_the_notebook_runs():
    with tempfile.TemporaryDirectory() as d:
        # The kernel "python3" the notebook names, as this Python: JUPYTER_PATH comes first.
        kernel = os.path.join(d, "kernels", "python3")
        os.makedirs(kernel)
        with open(os.path.join(kernel, "kernel.json"), "w", encoding="utf-8") as f:
            json.dump({"argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                       "display_name": "Python 3", "language": "python"}, f)
        env = dict(os.environ, JUPYTER_PATH=d, JUPYTER_RUNTIME_DIR=os.path.join(d, "runtime"),
                   JUPYTER_CONFIG_DIR=os.path.join(d, "config"), JUPYTER_DATA_DIR=os.path.join(d, "data"),
                   IPYTHONDIR=os.path.join(d, "ipython"), PYDEVD_DISABLE_FILE_VALIDATION="1")
        run = subprocess.run([sys.executable, "-m", "nbconvert", "--execute", "--to", "notebook", "--output-dir", d,
                              "--ExecutePreprocessor.timeout=300", NOTEBOOK], env=env, capture_output=True)
        assert run.returncode == 0, run.stderr.decode()[-3000:]
        with open(os.path.join(d, os.path.basename(NOTEBOOK)), encoding="utf-8") as f:
            cells = json.load(f)["cells"]
    outputs = [o for c in cells if c["cell_type"] == "code" for o in c["outputs"]]
    assert not [o for o in outputs if o["output_type"] == "error"]
    kinds = [set(o.get("data", {})) for o in outputs]
    # The tables (estimate, optimize's levers, the report, the budgets) and three charts.
    assert sum("text/html" in k for k in kinds) >= 4
    assert sum("application/vnd.vegalite.v5+json" in k for k in kinds) == 3
    text = "".join("".join(o.get("text", "")) for o in outputs)
    assert "gate failed: True" in text
