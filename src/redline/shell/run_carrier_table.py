"""The table of routes by which a program runs another program (issue 13,
family 4): through an option, the environment or its configuration.

One row per route: the program, how it is spelled, the module that follows
it, commands that carry a hard line through it (each denied; a row whose
carried code cannot be read is asked instead) and look-alikes that stay
allowed. The test suite runs every example; `python -m redline.rules.docs`
renders the table in docs/rules.md. Data only: nothing here runs on a call.
"""

from redline.fasttuple import NamedTuple


class Route(NamedTuple):
    program: str
    route: str
    # The module of `redline.shell` that follows the route.
    module: str
    carried: tuple[str, ...]
    look_alikes: tuple[str, ...]
    # `ask` when what runs cannot be read (a file, a computed string).
    verdict: str = "deny"


def _r(program: str, route: str, module: str, carried: str, look_alikes: str,
       verdict: str = "deny") -> Route:  # fmt: skip
    return Route(program, route, module, tuple(carried.split(" ;; ")),
                 tuple(look_alikes.split(" ;; ")), verdict)  # fmt: skip


ROUTES: tuple[Route, ...] = (
    _r(
        "sort",
        "--compress-program=CMD (any prefix)",
        "embedded",
        "sort --compress-program='rm -rf /' f ;; sort --compress-prog=reboot f",
        "sort --compress-program=gzip -S 1G big",
    ),
    _r(
        "rg",
        "--pre CMD, --hostname-bin CMD",
        "embedded",
        "rg --pre=reboot x . ;; rg --hostname-bin reboot x",
        "rg --pre pdftotext x docs/",
    ),
    _r("ag", "--pager CMD", "embedded", "ag --pager 'rm -rf ~' foo", "ag --pager less foo"),
    _r(
        "man",
        "-P CMD, --pager=CMD, -HCMD, --html=CMD",
        "embedded, run_carriers",
        "man -P 'rm -rf /' ls ;; man --pag=reboot ls ;; man -Hreboot ls ;; man --html=reboot ls",
        "man -P cat ls ;; man --pager=less ls",
    ),
    _r(
        "less",
        "LESSOPEN, LESSCLOSE, +!CMD",
        "carriers, embedded",
        "LESSOPEN='|rm -rf / %s' less f ;; LESSCLOSE='reboot %s' less f ;; less +'!reboot' f",
        "LESSOPEN='| /usr/bin/lesspipe %s' less f ;; less +F log",
    ),
    _r(
        "(any)",
        "PAGER, EDITOR, VISUAL, GIT_PAGER, GIT_EDITOR, GIT_SSH_COMMAND, *_ASKPASS...",
        "carriers, run_carriers",
        "PAGER='rm -rf /' man ls ;; EDITOR=reboot git commit ;; GIT_SSH_COMMAND='rm -rf ~' git "
        "fetch ;; SSH_ASKPASS=reboot ssh-add ;; export GIT_PAGER=reboot; git log ;; "
        "FZF_DEFAULT_COMMAND='rm -rf ~' fzf",
        "PAGER=cat git log ;; GIT_SSH_COMMAND='ssh -i ~/.ssh/deploy' git fetch ;; "
        "VISUAL='code --wait' git commit",
    ),
    _r(
        "(any)",
        "LD_PRELOAD, LD_AUDIT, PYTHONSTARTUP, NODE_OPTIONS=--require FILE",
        "run_carriers",
        "LD_PRELOAD=/tmp/x.so ls ;; PYTHONSTARTUP=/tmp/x.py python",
        "LD_LIBRARY_PATH=./lib ./app ;; NODE_OPTIONS=--max-old-space-size=4096 node x.js",
        "ask",
    ),
    _r(
        "git",
        "-c KEY=CMD (alias.*=!, core.pager, core.sshCommand, core.fsmonitor, "
        "diff.external, core.editor, credential.helper, filter.*...)",
        "subcommands",
        "git -c core.pager='rm -rf /' log ;; git -c alias.x='!reboot' x ;; "
        "git -c core.fsmonitor=reboot status ;; git -c diff.external='rm -rf ~' diff",
        "git -c core.pager=less log ;; git -c color.ui=always log",
    ),
    _r(
        "git",
        "GIT_CONFIG_PARAMETERS, GIT_CONFIG_KEY_n/GIT_CONFIG_VALUE_n",
        "run_carriers",
        "GIT_CONFIG_PARAMETERS=\"'core.pager=reboot'\" git log ;; GIT_CONFIG_COUNT=1 "
        "GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0='rm -rf ~' git log",
        "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=color.ui GIT_CONFIG_VALUE_0=auto git log",
    ),
    _r(
        "git",
        "config KEY CMD (alias.*=!, command keys)",
        "run_carriers",
        "git config alias.up '!reboot' ;; git config --global core.pager 'rm -rf /' ;; "
        "git config core.sshCommand reboot ;; git config --file=.git/config core.pager reboot ;; "
        "git config set --comment x core.pager reboot",
        "git config alias.st status ;; git config core.pager 'less -FRX' ;; "
        "git config --global alias.up '!git fetch && git rebase'",
    ),
    _r(
        "git",
        "core.hooksPath outside the repository",
        "run_carriers",
        "git -c core.hooksPath=/tmp/h commit -m x ;; git config core.hooksPath /tmp/h",
        "git config core.hooksPath .githooks ;; git -c core.hooksPath=/dev/null commit -m x",
        "ask",
    ),
    _r(
        "git",
        "rebase --exec, difftool --extcmd, send-email --to-cmd, grep -O, fetch "
        "--upload-pack, push --receive-pack, archive --exec, ext:: URLs, filter-branch, "
        "submodule foreach, bisect run",
        "subcommands, run_carriers",
        "git rebase --exec 'rm -rf ~' HEAD~2 ;; git difftool --extcmd=reboot ;; "
        "git grep -Oreboot x ;; git fetch --upload-pack='rm -rf ~' ../r ;; "
        "git -c protocol.ext.allow=always fetch 'ext::reboot'",
        "git difftool -x meld HEAD ;; git grep -O vim foo",
    ),
    _r(
        "hg, svn",
        "--config alias.x=!CMD, ui.editor, hooks.*; --editor-cmd, --diff-cmd",
        "run_carriers",
        "hg --config alias.x='!rm -rf ~' x ;; svn --editor-cmd 'rm -rf ~' commit",
        "hg --config ui.editor=vim commit",
    ),
    _r(
        "tar",
        "-I CMD, --use-compress-program, --to-command, --checkpoint-action=exec=, "
        "--info-script, -F",
        "embedded",
        "tar -I 'rm -rf /' -xf a.tar ;; tar --to-c=reboot -xf a.tar ;; "
        "tar -cf a.tar d --checkpoint=1 --checkpoint-action=exec='rm -rf ~'",
        "tar -I zstd -cf a.tar.zst dir ;; tar -cf - d --checkpoint=1000 --checkpoint-action=dot",
    ),
    _r(
        "zip",
        "-TT CMD, --unzip-command",
        "embedded",
        "zip -T -TT 'rm -rf /' a.zip f",
        "zip -T -TT 'unzip -t' a.zip f",
    ),
    _r(
        "rsync",
        "-e CMD, --rsh, RSYNC_RSH",
        "embedded, carriers",
        "rsync -e 'rm -rf /' a host:b ;; RSYNC_RSH=reboot rsync a host:b",
        "rsync -e 'ssh -p 2222' a host:b",
    ),
    _r(
        "ssh, scp, sftp",
        "-o ProxyCommand/LocalCommand/KnownHostsCommand, scp -S, sftp -S",
        "embedded, run_carriers",
        "ssh -o ProxyCommand='rm -rf ~' host ;; scp -S 'rm -rf /' a host:b ;; sftp -S reboot h",
        "ssh -o ProxyCommand='ssh -W %h:%p bastion' host ;; scp -o ProxyJump=b a host:c",
    ),
    _r(
        "vim, nvim, ex, view",
        "-c CMD, +CMD, --cmd (ex `!`, system()), -s FILE (asked)",
        "embedded, run_carriers",
        "vim -c '!rm -rf ~' f ;; nvim +'!reboot' f ;; vim -es -c '!reboot' ;; "
        "vim -c 'call system(\"reboot\")' f",
        "vim -c 'set nu' file ;; vim +10 file",
    ),
    _r(
        "emacs, emacsclient",
        "--eval '(shell-command ...)', '(delete-directory DIR t)', '(delete-file F)'",
        "run_carriers",
        "emacs --eval '(shell-command \"rm -rf ~\")' ;; emacsclient --eval "
        "'(call-process-shell-command \"reboot\")' ;; emacs --batch --eval "
        "'(delete-directory \"~\" t)'",
        "emacs --eval '(setq x 1)' f ;; emacs --batch --eval '(delete-directory \"build\" t)'",
    ),
    _r(
        "gdb",
        "-ex 'shell CMD', -ex '!CMD', -ex 'python os.system(...)'",
        "embedded, run_carriers",
        "gdb -ex 'shell rm -rf ~' ;; gdb -batch -ex '!reboot'",
        "gdb -ex run --args ./a.out",
    ),
    _r(
        "awk",
        'system(), "CMD" | getline, print | "CMD"',
        "carriers, run_carriers",
        "awk 'BEGIN{system(\"rm -rf /\")}' ;; awk 'BEGIN{\"reboot\" | getline}' ;; "
        'awk \'BEGIN{printf "reboot\\n" | "bash"}\'',
        "awk '{print $1}' f ;; awk 'BEGIN{system(\"ls -l\")}'",
    ),
    _r(
        "awk",
        "system($0) and other computed commands",
        "run_carriers",
        "awk '{system($0)}' f",
        "awk '{print | \"sort -u\"}' f",
        "ask",
    ),
    _r(
        "sed",
        "e CMD, s///e",
        "embedded, run_carriers",
        "sed 'e rm -rf ~' f ;; sed 's/^.*$/reboot/e' f",
        "sed 's/a/b/' f ;; sed -i 's/e/E/g' f",
    ),
    _r(
        "find",
        "-exec, -execdir, -ok, -okdir",
        "analysis, find",
        "find . -exec reboot \\; ;; find . -okdir kill -9 -1 \\;",
        "find . -name '*.pyc' -exec rm {} +",
    ),
    _r(
        "xargs",
        "CMD, -I R, -i",
        "wrappers",
        "echo x | xargs -I{} rm -rf / ;; xargs -i reboot <f",
        "xargs -I{} cp {} dst/",
    ),
    _r(
        "parallel",
        "CMD ::: ARGS",
        "embedded",
        "parallel 'rm -rf {}' ::: /",
        "parallel gzip ::: a b c",
    ),
    _r(
        "watch, flock, timeout, nice, nohup, setsid...",
        "the rest of the line",
        "wrappers",
        "watch -n 1 'rm -rf ~' ;; flock /tmp/l rm -rf / ;; flock /tmp/l -c reboot",
        "watch df -h ;; flock /tmp/lock make build",
    ),
    _r(
        "systemd-run, at, batch, crontab -",
        "a command or a job run later",
        "wrappers, subcommands, run_carriers",
        "systemd-run rm -rf / ;; echo 'rm -rf ~' | at now ;; crontab - <<< '@reboot rm -rf /'",
        "systemd-run --user --scope make -j4 ;; echo 'make test' | at now + 1 hour",
    ),
    _r(
        "at, batch, vim",
        "at -f FILE, vim -s FILE (a script no one read)",
        "run_carriers",
        "at -f /tmp/job.sh now ;; vim -s /tmp/keys f",
        "atq ;; vim -es -c 'set nu' f",
        "ask",
    ),
    _r(
        "make",
        "--eval (any prefix), -E, -f - from stdin, $(shell CMD)",
        "embedded, run_carriers",
        "make --eval='x:; rm -rf ~' x ;; make --ev='a:;reboot' a ;; "
        "echo 'all:; reboot' | make -f - ;; make --eval='$(shell rm -rf ~)'",
        "make -f Makefile.dev test ;; make --eval='print-%: ; @echo $*' print-CC",
    ),
    _r(
        "npm, npx",
        "exec -- CMD, -c CMD, --call",
        "runners, embedded",
        "npm exec -- rm -rf ~ ;; npx -c reboot",
        "npx prettier --write . ;; npm exec -- eslint .",
    ),
    _r(
        "docker, podman, kubectl",
        "run/exec IMAGE CMD, sh -c CMD (judged as a command)",
        "subcommands",
        "docker run --rm alpine sh -c 'rm -rf /' ;; docker exec web sh -c reboot ;; "
        "kubectl exec p -- sh -c 'rm -rf /'",
        "docker run --rm alpine sh -c 'echo hi'",
    ),
    _r(
        "fzf",
        "--preview CMD, --bind KEY:execute(CMD)",
        "run_carriers",
        "fzf --preview 'rm -rf ~' ;; fzf --bind 'enter:execute(rm -rf ~)'",
        "fzf --preview 'cat {}'",
    ),
    _r(
        "hyperfine, nodemon, watchexec, entr",
        "the commands they time or rerun",
        "run_carriers, command_runners",
        "hyperfine 'rm -rf ~' ;; nodemon --exec 'rm -rf ~' ;; watchexec -- rm -rf ~ ;; "
        "ls | entr rm -rf /",
        "hyperfine 'sleep 0.1' ;; watchexec -e py -- pytest ;; entr -r python app.py",
    ),
    _r(
        "perf, valgrind, dbus-launch, tsp, pueue, dtach, ip netns exec, capsh --",
        "the command they run",
        "command_runners",
        "perf stat rm -rf ~ ;; valgrind rm -rf / ;; ip netns exec n rm -rf / ;; "
        "capsh -- -c 'rm -rf /' ;; pueue add -- rm -rf ~",
        "perf stat ls ;; valgrind ./a.out",
    ),
    _r(
        "xterm, gnome-terminal, kitty...",
        "-e CMD, -- CMD",
        "command_runners",
        "xterm -e 'rm -rf ~' ;; gnome-terminal -- rm -rf /",
        "xterm -e htop",
    ),
    _r(
        "apt-get, apt",
        "-o ...::Pre-Invoke::=CMD, -o Dpkg::Post-Invoke=CMD",
        "command_runners",
        "apt-get -o APT::Update::Pre-Invoke::='rm -rf ~' update",
        "apt-get -o Acquire::Retries=3 update",
    ),
    _r(
        "expect, lftp, sg, wget, cmake -E",
        "spawn CMD, !CMD, -c CMD, --use-askpass, rm",
        "command_runners, run_carriers",
        "expect -c 'spawn rm -rf ~' ;; lftp -c '!rm -rf ~' ;; sg wheel -c 'rm -rf /' ;; "
        "wget --use-askpass='rm -rf ~' https://x/y ;; cmake -E rm -rf /",
        "cmake -E make_directory build",
    ),
    _r(
        "ed, ex, vim -e, sftp -b -, dc, gdb",
        '`!CMD`, `shell CMD`, `call system("CMD")` in the commands they read',
        "tool_scripts",
        "ed f <<< '!rm -rf ~' ;; vim -es f <<< '!reboot' ;; sftp -b - h <<< '!rm -rf ~' ;; "
        "dc -e '!reboot' ;; gdb -batch -ex 'call system(\"rm -rf ~\")'",
        "ed -s f <<< 'w' ;; dc -e '2 3 + p' ;; gdb -batch -ex 'call getpid()'",
    ),
    _r(
        "psql, mysql, sqlite3",
        "shell escapes on stdin (`\\! CMD`, `system CMD`, `.shell CMD`), `mysql --pager=CMD`",
        "embedded, tool_scripts",
        "psql db <<< '\\! rm -rf ~' ;; sqlite3 x.db <<< '.shell reboot' ;; "
        "mysql --pager='rm -rf ~' db",
        "psql db <<< 'select 1' ;; mysql --pager=less db",
    ),
    _r(
        "strace, ltrace, socat, ncat, ssh-agent, tmux, bpftrace",
        "-o '|CMD', EXEC:CMD / SYSTEM:CMD, --sh-exec CMD, ssh-agent CMD, tmux -c CMD, system()",
        "tool_scripts",
        "strace -o '|rm -rf ~' ls ;; socat - EXEC:'rm -rf ~' ;; ncat -l 1 --sh-exec reboot ;; "
        "ssh-agent rm -rf / ;; tmux -c 'rm -rf ~'",
        "strace -o trace.txt ls ;; socat - TCP:localhost:8080 ;; ssh-agent -s",
    ),
    _r(
        "npm, make, gh, wget",
        "--script-shell, pkg set scripts.*, SHELL=CMD, alias set --shell, -e use_askpass=CMD",
        "tool_scripts",
        "npm --script-shell 'rm -rf ~' run build ;; npm pkg set scripts.x='rm -rf ~' ;; "
        "make SHELL='rm -rf ~' all ;; gh alias set --shell x 'rm -rf ~' ;; "
        "wget -e use_askpass=reboot https://x",
        "npm pkg set scripts.test=jest ;; make SHELL=/bin/bash all ;; "
        "gh alias set co 'pr checkout'",
    ),
    _r(
        "(any program not listed)",
        "an argument that is a command crossing a hard line",
        "rules.carried_args (exec.hardline-argument)",
        "mytool --run 'rm -rf ~' ;; ./deploy.sh --after 'shutdown -h now'",
        "grep -r 'rm -rf /' . ;; git commit -m 'guard against rm -rf /' ;; last reboot",
    ),
)
