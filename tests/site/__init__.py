"""The static site (`make site`, website/build.py), built once per test session and read in
headless Chromium as a reader would read it."""
