"""The fuzzing harness: targets, a structure-aware mutator, seed corpora and the runner.

See README.md ("Hostile input") for the contract the targets check and
``fuzz/run TARGET SECONDS`` for running one under atheris.
"""
