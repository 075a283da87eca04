#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Compare rdma-core's pyverbs results of MetaRoCE and rxe, module by module.
#   pyverbs_table.py LOGDIR MODULE...
# LOGDIR holds <dev>-<module>.log for dev in metaroce, rxe (unittest -v
# output).  Prints a table and every test rxe passes that MetaRoCE does not,
# with the explanation when the cause is known; exits 1 if one is not.
import os
import re
import sys

RESULT = re.compile(r'^(test\w+) \(([\w.]+)\)(?:\n(?:.*\n){0,3}?)?.*? \.\.\. '
                    r'(ok|FAIL|ERROR|skipped .*|expected failure)$', re.M)
# A FAIL/ERROR header, the docstring's first line if any, a dashed line,
# then the traceback: its last line says why.
BLOCK = re.compile(r'^(FAIL|ERROR): (test\w+) \(([\w.]+)\)\n(?:.*\n)*?-{60,}\n'
                   r'([\s\S]*?)(?=^[=-]{60,})', re.M)

# Known causes of a MetaRoCE failure or skip that rxe passes: (test id,
# reason, explanation).  Both patterns must match; anything else is an
# unexplained difference and fails the test.
EXPLAINED = []  # none today


def parse(path):
    try:
        text = open(path, errors='replace').read()
    except OSError:
        return {}, {}
    res = {}
    for name, tid, r in RESULT.findall(text):
        res[tid] = 'pass' if r in ('ok', 'expected failure') else \
            'skip' if r.startswith('skipped') else 'fail'
        if r.startswith('skipped'):
            res[tid + '#why'] = r
    why = {}
    for kind, name, tid, body in BLOCK.findall(text):
        lines = [ln for ln in body.strip().splitlines() if ln.strip()]
        why[tid] = lines[-1] if lines else kind
    return res, why


def main():
    logdir, mods = sys.argv[1], sys.argv[2:]
    unexplained = 0
    rows = []
    diffs = []
    notes = []
    for mod in mods:
        for kind in ('absent', 'traffic'):
            if os.path.exists(f'{logdir}/{kind}-{mod}'):
                notes.append(open(f'{logdir}/{kind}-{mod}').read().strip())
        if notes and notes[-1].startswith(f'# {mod}:'):
            rows.append((mod, None, None))
            continue
        counts = {}
        results = {}
        for dev in ('metaroce', 'rxe'):
            res, why = parse(f'{logdir}/{dev}-{mod}.log')
            results[dev] = (res, why)
            c = {'pass': 0, 'fail': 0, 'skip': 0}
            for k, v in res.items():
                if not k.endswith('#why'):
                    c[v] += 1
            counts[dev] = c
        rows.append((mod, counts['metaroce'], counts['rxe']))
        if all(not counts[d]['pass'] and not counts[d]['fail'] and
               counts[d]['skip'] for d in counts):
            why = sorted({v for k, v in results['metaroce'][0].items()
                          if k.endswith('#why')})
            notes.append('# %s: every test skipped on both devices: %s' %
                         (mod, '; '.join(w[8:] for w in why)))
        for dev in ('metaroce', 'rxe'):
            if not sum(counts[dev].values()):
                # A crash or a selection that matches nothing.
                unexplained += 1
                diffs.append((mod, 'no results on ' + dev,
                              'see %s-%s.log' % (dev, mod), None))
        mres, mwhy = results['metaroce']
        rres, _ = results['rxe']
        for tid, r in sorted(rres.items()):
            if tid.endswith('#why') or r != 'pass' or mres.get(tid) == 'pass':
                continue
            got = mres.get(tid, 'missing')
            reason = mwhy.get(tid) or mres.get(tid + '#why') or got
            expl = next((e for trx, rrx, e in EXPLAINED
                         if trx.search(tid) and rrx.search(reason)), None)
            if not expl:
                unexplained += 1
            diffs.append((tid, got, reason, expl))

    print('# %-16s %-20s %-20s' % ('module', 'metaroce p/f/s', 'rxe p/f/s'))
    for mod, m, r in rows:
        if m is None:
            print('# %-16s %-20s %-20s' % (mod, '-', '-'))
            continue
        print('# %-16s %-20s %-20s' % (
            mod, '%d/%d/%d' % (m['pass'], m['fail'], m['skip']),
            '%d/%d/%d' % (r['pass'], r['fail'], r['skip'])))
    tot = [sum(r[i][k] for r in rows if r[i]) for i in (1, 2)
           for k in ('pass', 'fail', 'skip')]
    print('# %-16s %-20s %-20s' % ('total', '%d/%d/%d' % tuple(tot[:3]),
                                   '%d/%d/%d' % tuple(tot[3:])))
    for n in notes:
        print(n)
    print('# rxe passes, MetaRoCE does not:')
    for tid, got, reason, expl in diffs:
        print('#   %s: %s (%s)%s' % (tid, got, reason[:120],
                                     ' -- explained: ' + expl if expl
                                     else ' -- UNEXPLAINED'))
    return 1 if unexplained else 0


if __name__ == '__main__':
    sys.exit(main())
