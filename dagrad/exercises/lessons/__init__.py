"""The lessons' exercises, one module per lesson (``lesson_01`` for notebooks/01_*.ipynb):
each exercise's expected value, the ``why`` shown with the reveal, and the misconceptions the
lesson teaches against. ``dagrad.exercises.check("01.3", ...)`` imports the lesson's module
when it first needs it; docs/exercises.md says how to write one."""
