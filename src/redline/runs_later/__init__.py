"""Files that run later (issue 18 family 3): a file a tool executes later
(a Makefile, a CI workflow, a git hook, `package.json` scripts...) is judged,
when it is written, by the commands its new content carries.

- `places`: which files run later, and in which format their commands are.
- `make_syntax`: the shell lines of a makefile or justfile (`make_reader`
  and `make_expand` read make's semantics, `just_syntax` just's).
- `git_config`, `package_rc`, `cmake_lists`, `native_builds`: files whose
  settings run commands (git, npm and yarn, CMake, gyp, meson, task files).
- `ci_formats`: the steps of YAML and JSON files (CI workflows, Taskfile,
  pre-commit, editor tasks, `package.json` scripts).
- `formats`: the other formats (tox, pyproject, Dockerfile, Jenkinsfile,
  crontab, Python build files, shell scripts).
- `judge`: each carried command analysed and judged by the catalogue.
- `placed`, `placed_moves`: files put in place whole (copied, linked, extracted,
  downloaded...), with their content when the command line wrote it.
- `shell_writes`: what a command line writes into such a file.
"""
