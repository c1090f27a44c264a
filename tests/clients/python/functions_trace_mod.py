"""The module side of functions_trace.py: methods, a classmethod, a staticmethod, a generator."""
import json


class Worker:
    def run(self, n):
        return [json.loads(json.dumps({"i": i})) for i in range(n)]

    @classmethod
    def cm(cls):
        return 1

    @staticmethod
    def sm():
        return 2


def gen():
    yield 1
    yield 2
