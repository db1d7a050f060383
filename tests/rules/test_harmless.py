"""The allowlist of plainly harmless inline code, and its bypass attempts."""

from __future__ import annotations

import pytest

from redline.rules.harmless import harmless


@pytest.mark.parametrize(
    ("family", "code"),
    [
        ("python", "import sys; print(sys.version)"),
        ("python", "print(1+1)"),
        ("python", "import json,sys; print(json.dumps(json.load(sys.stdin), indent=2))"),
        ("python", "import os.path; print(os.path.exists('x'))"),
        ("python", "from os import getcwd; print(getcwd())"),
        ("python", "print(open('x', encoding='utf-8').read())"),
        ("python", "import sys; print(sys.stdin.read().upper(), file=sys.stderr)"),
        ("node", "console.log(JSON.stringify({a: 1, b: [2]}))"),
        ("node", "const x = 5; console.log(x * 2)"),
        ("node", "console.log('http://x.io') // a comment"),
        ("perl", "print if /foo/"),
        ("perl", "s/foo/bar/g"),
        ("perl", "$c{$_}++; END { print scalar keys %c }"),
        ("ruby", "STDIN.each_line { |l| puts l.upcase }"),
        ("ruby", "puts({a: 1}.to_json)"),
        ("php", "echo PHP_VERSION;"),
        ("lua", "local x = 5 print(x * 2)"),
    ],
)
def test_harmless(family: str, code: str) -> None:
    assert harmless(family, code)


@pytest.mark.parametrize(
    ("family", "code"),
    [
        ("python", "__import__('os').system('id')"),
        ("python", "getattr(__builtins__, 'ex' + 'ec')('1')"),
        ("python", "import os; os.system(cmd)"),
        ("python", "import os; os.remove('x')"),
        ("python", "import os.path; os.system('id')"),
        ("python", "import urllib.parse; urllib.request.urlopen('x')"),
        ("python", "from os import system"),
        ("python", "from sys import *"),
        ("python", "import sys; sys.modules['os']"),
        ("python", "open('x', 'a')"),
        ("python", "open('x', mode=m)"),
        ("python", "f = open; f('x', 'w')"),
        ("python", "import string; string.Formatter().get_field('0.__init__', [1], {})"),
        ("python", "print('__globals__')"),
        ("python", "import os; os.system('ls' '; id')"),
        ("python", "import os; f = os.system; f('id')"),
        ("python", "from subprocess import run; run('id')"),
        ("python", "import subprocess; subprocess.run(['ls'], stdout=open('x', 'w'))"),
        ("php", 'system("rm $x");'),
        ("python", "import os\x00"),
        ("node", "require('child_process').execSync('id')"),
        ("node", "process.mainModule.require('fs')"),
        ("node", "x = {require: 1}; require('fs')"),
        ("node", "true ? require : 0"),
        ("node", "Object.values(process)[3]('x')"),
        ("node", "(function(){})()"),
        ("node", "\\u0065val('1')"),
        ("perl", "system($cmd)"),
        ("perl", "print `id`"),
        ("perl", "print if /'/ and unlink(\"f\"); #'/"),
        ("perl", "print 1; # it's fine\nunlink(\"f\"); #'"),
        ("perl", "CORE::system('id')"),
        ("perl", '&{"sys" . "tem"}(\'id\')'),
        ("perl", "print $ENV{HOME}"),
        ("perl", "s/x/y/ee"),
        ("perl", "m/(?{ system 'id' })/"),
        ("ruby", "system = 1; system('id')"),
        ("ruby", "Kernel.send(:system, 'id')"),
        ("ruby", "%x(id)"),
        ("php", "'system'('id');"),
        ("php", "$f = 'system'; $f('id');"),
        ("php", "echo \"{${system('id')}}\";"),
        ("php", "@unlink('f');"),
        ("php", "echo 1; # x\nunlink('f');"),
        ("lua", "print(#arg) os.execute('id')"),
        ("lua", "_G['os']['execute']('id')"),
        ("osascript", 'say "hi"'),
        ("node", "console.log('unterminated"),
    ],
)
def test_not_shown_harmless(family: str, code: str) -> None:
    assert not harmless(family, code)


@pytest.mark.parametrize(
    ("family", "code"),
    [
        ("python", "import subprocess; subprocess.run(['git', 'status'], check=True)"),
        ("python", "import os; os.system('ls -l')"),
        ("perl", "system('ls -l')"),
        ("ruby", "system('ls -l')"),
        ("php", "system('ls -l');"),
    ],
)
def test_literal_shell_calls_pass_only_when_the_analysis_carried_them(
    family: str, code: str
) -> None:
    assert (harmless(family, code, carried=True), harmless(family, code)) == (True, False)
