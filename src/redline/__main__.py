"""`python -m redline`: the command line; `hook` and `run` skip argparse (each
starts a process per tool call or command, ADR 0004)."""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # not `typing`'s: a hook's start never loads `typing` (ADR 0004)
if TYPE_CHECKING:
    from redline.image import ModuleImage


def _main() -> int:
    argv = sys.argv[1:]
    try:
        if argv[:1] == ["hook"]:
            # One call, then `os._exit`: the cyclic collector would only walk
            # the modules being loaded (~2% of the start) and free nothing.
            import gc

            gc.disable()
            _serve_from_image()
            from redline.cli.hook import fast_main, wants_help

            if not wants_help(argv[1:]):
                return fast_main(argv[1:])
    except BaseException as error:  # noqa: BLE001 - a hook that fails blocks the call
        sys.stderr.write(f"redline blocked this call: the hook failed: {error}\n")
        return 2
    if argv[:1] == ["run"]:
        code = fast_run(argv[1:])
        if code is not None:
            return code
    from redline.cli.main import main

    return main(argv)


_image: list[ModuleImage] = []


def fast_run(argv: list[str]) -> int | None:
    """`redline run` started as a hook is: the image serves redline's modules,
    no cyclic collector, no argparse (`None`: argparse reads the line)."""
    import gc

    gc.disable()
    _serve_from_image()
    from redline.cli.run import fast_main

    return fast_main(argv)


def _serve_from_image() -> None:
    """Load redline's modules from the hook image (ADR 0004); if that fails,
    the usual imports serve them."""
    try:
        from redline.image import ModuleImage

        image = ModuleImage.for_redline()
        image.install()
        _image.append(image)
    except Exception:  # noqa: BLE001, S110 - only a faster path is lost
        pass


def _hook_exit(code: int) -> None:
    """End a hook (or `run`) process as soon as its answer is out. The log
    entry is committed and nothing else is pending, so skip the interpreter's
    teardown (tearing down the catalogue costs more than answering). An
    answer that cannot be delivered blocks."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:  # noqa: BLE001 - the host stopped reading: block
        code = 2
    _save_image()  # after the answer: a rewrite never delays it
    os._exit(code)


def _save_image() -> None:
    """Rewrite the image if this process imported modules the usual way."""
    for image in _image:
        try:
            image.save()
        except Exception:  # noqa: BLE001, S112 - the next process rewrites it
            continue


def run() -> None:
    """`python -m redline ...`; installed hooks run it as `python -c 'import
    redline.__main__ as m; m.run()' hook AGENT`, which skips `runpy`."""
    exit_code = _main()
    if sys.argv[1:2] in (["hook"], ["run"]):
        _hook_exit(exit_code)
    sys.exit(exit_code)


if __name__ == "__main__":
    run()
