"""The static site of the lessons and the documentation (website/build.py, `make site`)."""
