"""The examples of docs/python.md run: each ```python block in order in one namespace, in a
directory holding run.rep; the recipe file example through `sightline recipe`."""
import contextlib
import io
import os
import re
import subprocess
import unittest

import pandas as pd

from fixtures import CLI, generated, work_dir

DOC = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "python.md")


def blocks():
    with open(DOC) as f:
        return re.findall(r"```python\n(.*?)```", f.read(), re.S)


class DocExamples(unittest.TestCase):
    def test_examples_run(self):
        work = work_dir("docs")
        generated(work, "run.rep")
        code = [b for b in blocks() if not b.startswith("# my_recipe.py")]
        self.assertGreaterEqual(len(code), 6)
        namespace = {}
        old = os.getcwd()
        os.chdir(work)
        try:
            for i, block in enumerate(code):
                with self.subTest(block=i), contextlib.redirect_stdout(io.StringIO()):
                    exec(compile(block, f"docs/python.md block {i}", "exec"), namespace)
        finally:
            os.chdir(old)

    def test_recipe_example(self):
        recipe = [b for b in blocks() if b.startswith("# my_recipe.py")]
        self.assertEqual(len(recipe), 1)
        work = work_dir("docs_recipe")
        runs = os.path.join(work, "runs")
        os.makedirs(runs)
        for rank in range(2):
            generated(runs, f"rank{rank}.rep", events=5000, seed=rank + 1)
        path = os.path.join(work, "my_recipe.py")
        with open(path, "w") as f:
            f.write(recipe[0])
        out = os.path.join(work, "longest.csv")
        p = subprocess.run([CLI, "recipe", path, "--input", runs, "--workers", "1", "-o", out],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        result = pd.read_csv(out)
        self.assertEqual(result["Rank"].tolist(), [0, 1])
        self.assertTrue((result["Duration (ns)"] > 0).all())
        self.assertAlmostEqual(result["vs mean"].mean(), 1.0, places=2)


if __name__ == "__main__":
    unittest.main()
