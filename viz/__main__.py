"""Command line: ``python -m dagrad.viz demo [--out DIR] [--epochs N]`` (see ``viz.demo``)."""
import argparse
import sys


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m dagrad.viz", description="Pictures of compute graphs and their gradients.")
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser(
        "demo", help="train a small MLP on the digits and write a graph with gradients (SVG), "
                     "a step-through of a two-layer network (HTML) and a gradient-flow plot "
                     "(PNG)")
    demo.add_argument("--out", default="demo_output", help="output directory (default: "
                                                          "%(default)s)")
    demo.add_argument("--epochs", type=int, default=12, help="training epochs (default: "
                                                            "%(default)s)")
    args = parser.parse_args(argv)
    from .demo import main as run_demo
    try:
        run_demo(args.out, args.epochs)
    except (ImportError, RuntimeError) as e:      # a missing extra or Graphviz's dot
        print(f"python -m dagrad.viz demo: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
