#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1
"""
libperfctr's native event names against Linux's perf event tables.

    native_vs_perf.py --encoder PATH --json-root DIR --pmu PMU
                      [--runner "qemu-aarch64"] [--samples DIR] [--verbose]

The encoder is lib/tests/native_encode: it reads event names, one a line,
and prints what perfctr_event_parse() makes of each for a made-up machine
(lib/tests/machines.h).  It runs with LIBPFM_FORCE_PMU=PMU, so that the
library looks the names up in that PMU's libpfm4 table whatever this host
is.  The expected values come from perf's JSON event tables
(tools/perf/pmu-events/arch/ of a Linux tree: DIR), read here with no
help from libpfm4:

  x86 (Intel, AMD)  EventCode | UMask << 8 | USR and OS (bits 16, 17)
                    | EdgeDetect << 18 | AnyThread << 21 | Invert << 23
                    | CounterMask << 24, and an AMD event code's bits 8-11
                    in bits 32-35; pmc_map 0xffffffff (any counter).
                    Intel's events on a fixed counter only ("Counter":
                    "Fixed counter N", event code 0): USR | OS (and
                    AnyThread), pmc_map 0x40000000 | N.
  arm64 (PMUv3)     the event number, no exclude bit; pmc_map 0xffffffff.

The tests, in TAP:

  sample    each line of native-sample/PMU.txt, "OUR_NAME [PERF_NAME]",
            as the encoder must give it (PERF_NAME defaults to OUR_NAME
            less its modifiers, its first ":" a "."); its modifiers :u,
            :k, :uk, u=0|1, k=0|1, c=N, e, i and t (e, i, t also =0|1)
            change the expected value as they change the selector
  fixed     Intel's fixed-counter events on the counter the JSON names
  extra     an offcore response, a load latency and a precise frontend
            event, which need a register besides the selector: refused
            with EOPNOTSUPP
  unknown   a name the PMU lacks: EINVAL or EOPNOTSUPP, the message
            naming the PMU; a unit mask the event lacks: refused
  sweep     every core event of the JSON by perf's name, less those of
            test fixed: where libpfm4 knows the name too, the encoding
            must be perf's, or the refusal EOPNOTSUPP for an event perf
            programs an MSR for.  libpfm4 does not know a name when the
            encoder refuses it with EINVAL and a message that names the
            PMU (events.h: the library's own refusals of an event libpfm4
            encoded do not); any other refusal is a difference.  A
            difference is a failure unless native-sample/PMU.known lists
            it ("PERF_NAME  reason"), and a listed one that no longer
            differs is a failure too.  Names only perf has are counted,
            nothing more.  perf's AMD names are its own (ex_ret_instr),
            so that the sweep finds few there and the sample carries the
            weight; elsewhere a sweep that finds none fails (a wrong
            PMU?).

Exit status: 0 if every test passed, 1 if one failed, 2 if the tests
could not run.
"""

import argparse
import glob
import json
import os
import re
import shlex
import subprocess
import sys

USR = 1 << 16
OS = 1 << 17
EDGE = 1 << 18
ANYTHR = 1 << 21
INV = 1 << 23
ANY_PMC = 0xffffffff
FIXED_MAP = 0x40000000
ARM_EXCLUDE_EL1 = 1 << 31       # counts user mode only
ARM_EXCLUDE_EL0 = 1 << 30       # counts kernel mode only

# libpfm4's PMU: vendor, made-up machine of machines.h, perf's directory
PMUS = {
    'skl': ('intel', 'intel', 'x86/skylake'),
    'icl': ('intel', 'icelake', 'x86/icelake'),
    'spr': ('intel', 'sapphire_rapids', 'x86/sapphirerapids'),
    'amd64_fam19h_zen3': ('amd', 'amd', 'x86/amdzen3'),
    'amd64_fam19h_zen4': ('amd', 'amd', 'x86/amdzen4'),
    'arm_ac57': ('arm', 'arm64', 'arm64/arm/cortex-a57-a72'),
    'arm_n1': ('arm', 'arm64', 'arm64/arm/neoverse-n1'),
}

# Intel's fixed-counter events that libpfm4 must give on their counter.
FIXED = {
    'skl': ['INST_RETIRED.ANY', 'CPU_CLK_UNHALTED.THREAD',
            'CPU_CLK_UNHALTED.REF_TSC'],
    'icl': ['INST_RETIRED.ANY', 'CPU_CLK_UNHALTED.THREAD',
            'CPU_CLK_UNHALTED.REF_TSC', 'TOPDOWN.SLOTS'],
    'spr': ['INST_RETIRED.ANY', 'CPU_CLK_UNHALTED.THREAD',
            'CPU_CLK_UNHALTED.REF_TSC', 'TOPDOWN.SLOTS'],
}

# Events that need a register besides the selector: (ours, perf's).
EXTRA = {
    'skl': [('OFFCORE_RESPONSE_0:DMND_DATA_RD:ANY_RESPONSE',
             'OFFCORE_RESPONSE.DEMAND_DATA_RD.ANY_RESPONSE'),
            ('MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=4',
             'MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4'),
            ('FRONTEND_RETIRED.DSB_MISS', None)],
    'icl': [('OCR:DEMAND_DATA_RD_ANY_RESPONSE',
             'OCR.DEMAND_DATA_RD.ANY_RESPONSE'),
            ('MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=4',
             'MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4'),
            ('FRONTEND_RETIRED.DSB_MISS', None)],
    'spr': [('OCR:DEMAND_DATA_RD_ANY_RESPONSE',
             'OCR.DEMAND_DATA_RD.ANY_RESPONSE'),
            ('MEM_TRANS_RETIRED:LOAD_LATENCY:ldlat=4',
             'MEM_TRANS_RETIRED.LOAD_LATENCY_GT_4'),
            ('FRONTEND_RETIRED.DSB_MISS', None)],
}

UNKNOWN_NAME = 'NO_SUCH_EVENT.AT_ALL'
UNKNOWN_UMASK = 'NO_SUCH_UMASK'

# The modifiers of a sample's name that change the expected value.
MODIFIER = re.compile(r'^(u|k|uk|ku|e|i|t|[ukeit]=[01]|c=(0x[0-9a-f]+|\d+))$',
                      re.IGNORECASE)


class Fatal(Exception):
    pass


def number(value, default=0):
    """A JSON field: "0xB7, 0xBB" (the first), "1", 6 or absent."""
    if value is None:
        return default
    if isinstance(value, int):
        return value
    text = str(value).split(',')[0].strip()
    if not text:
        return default
    return int(text, 0)


def is_core(entry):
    """An event of the core PMU, not of an uncore unit nor a metric."""
    if 'EventName' not in entry or 'MetricName' in entry:
        return False
    unit = entry.get('Unit')
    return unit is None or unit.lower() in ('core', 'cpu', 'cpu_core')


def load_json(root, pmu):
    """perf's core events of @pmu: {upper-case name: entry}."""
    vendor, _, subdir = PMUS[pmu]
    path = os.path.join(root, subdir)
    files = sorted(glob.glob(os.path.join(path, '*.json')))
    if not files:
        raise Fatal('no JSON event files in %s' % path)
    std = {}
    if vendor == 'arm':
        arm64 = os.path.join(root, 'arm64')
        for name in ('common-and-microarch.json', 'recommended.json'):
            with open(os.path.join(arm64, name)) as f:
                for entry in json.load(f):
                    if 'EventName' in entry:
                        std.setdefault(entry['EventName'], entry)
    events = {}
    for path in files:
        base = os.path.basename(path)
        if base.startswith('uncore-') or 'metric' in base:
            continue
        with open(path) as f:
            entries = json.load(f)
        for entry in entries:
            if 'ArchStdEvent' in entry:
                ref = entry['ArchStdEvent']
                if ref not in std:
                    raise Fatal('%s: ArchStdEvent %s is in neither '
                                'common-and-microarch.json nor '
                                'recommended.json' % (base, ref))
                merged = dict(std[ref])
                merged.update(entry)
                entry = merged
            if not is_core(entry):
                continue
            entry = dict(entry)
            entry['_file'] = base
            events.setdefault(entry['EventName'].upper(), entry)
    return events


def fixed_counter(entry):
    """N of "Fixed counter N", or None."""
    m = re.match(r'\s*fixed counter\s+(\d+)\s*$', str(entry.get('Counter',
                                                                  '')),
                 re.IGNORECASE)
    return int(m.group(1)) if m else None


def needs_msr(entry):
    return 'MSRIndex' in entry and number(entry['MSRIndex']) != 0


def refused_why(entry, vendor):
    """Why libperfctr must refuse perf's @entry, or None."""
    if needs_msr(entry):
        return 'perf programs MSR %s for it' % entry['MSRIndex']
    # arch/x86/events/amd/core.c, amd_is_pair_event_code(): family 17h on
    if vendor == 'amd' and number(entry.get('EventCode')) == 0x003:
        return 'perf pairs two counters for it'
    return None


def split_modifiers(name):
    """'EV:UM:u:c=2' -> ('EV:UM', ['u', 'c=2'])."""
    parts = name.split(':')
    mods = []
    while len(parts) > 1 and MODIFIER.match(parts[-1]):
        mods.insert(0, parts.pop().lower())
    return ':'.join(parts), mods


def perf_name_of(ours):
    event, _ = split_modifiers(ours)
    return event.replace(':', '.', 1)


def modes_of(mods):
    """(user, kernel) that @mods count, both without a mode modifier."""
    plm = {}
    for mod in mods:
        if mod in ('u', 'k', 'uk', 'ku'):
            plm['u'] = 'u' in mod
            plm['k'] = 'k' in mod
        elif mod in ('u=0', 'u=1', 'k=0', 'k=1'):
            plm[mod[0]] = mod[2] == '1'
    if not plm:
        return True, True
    return plm.get('u', False), plm.get('k', False)


def expected(entry, vendor, mods=()):
    """(selector, pmc_map) that perf's @entry gives with @mods."""
    code = number(entry.get('EventCode'))
    user, kernel = modes_of(mods)
    if vendor == 'arm':
        sel = code
        if user and not kernel:
            sel |= ARM_EXCLUDE_EL1
        elif kernel and not user:
            sel |= ARM_EXCLUDE_EL0
        return sel, ANY_PMC

    umask = number(entry.get('UMask'))
    edge = number(entry.get('EdgeDetect'))
    anythr = number(entry.get('AnyThread'))
    inv = number(entry.get('Invert'))
    cmask = number(entry.get('CounterMask'))
    for mod in mods:
        if mod in ('e', 'e=1', 'e=0'):
            edge = int(mod != 'e=0')
        elif mod in ('i', 'i=1', 'i=0'):
            inv = int(mod != 'i=0')
        elif mod in ('t', 't=1', 't=0'):
            anythr = int(mod != 't=0')
        elif mod.startswith('c='):
            cmask = int(mod[2:], 0)
    modes = (USR if user else 0) | (OS if kernel else 0)

    fixed = fixed_counter(entry) if vendor == 'intel' else None
    if fixed is not None and (code & 0xff) == 0:
        return modes | (ANYTHR if anythr else 0), FIXED_MAP | fixed

    sel = (code & 0xff) | (umask & 0xff) << 8 | modes
    if edge:
        sel |= EDGE
    if anythr:
        sel |= ANYTHR
    if inv:
        sel |= INV
    sel |= (cmask & 0xff) << 24
    if vendor == 'amd':
        sel |= ((code >> 8) & 0xf) << 32
    return sel, ANY_PMC


def names_pmu(msg, pmu):
    """
    Does the refusal @msg name @pmu?  The library names the PMU when
    libpfm4 does not know the name (events.h); its own refusals of an
    event libpfm4 encoded do not.
    """
    return re.search(r'(^|[^A-Za-z0-9_])%s($|[^A-Za-z0-9_])' % re.escape(pmu),
                     msg) is not None


def read_list(path):
    """
    The lines of @path that are not blank nor comments ("#" first), as
    [(line number, [first word, the rest])]; none if there is no @path.
    """
    out = []
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if line and not line.startswith('#'):
                out.append((lineno, line.split(None, 1)))
    return out


class Result:
    def __init__(self, fields):
        self.name = fields[0]
        self.ok = fields[1] != 'error'
        if self.ok:
            self.sel = int(fields[1], 16)
            self.map = int(fields[2], 16)
            self.errno = None
            self.msg = ''
        else:
            self.sel = self.map = None
            self.errno = fields[2]
            self.msg = fields[3] if len(fields) > 3 else ''

    def __str__(self):
        if self.ok:
            return 'selector 0x%x, pmc_map 0x%x' % (self.sel, self.map)
        return '%s: %s' % (self.errno, self.msg)


def encode(args, machine, names):
    """The encoder's answers for @names, in order."""
    cmd = shlex.split(args.runner) if args.runner else []
    cmd += [args.encoder, machine]
    env = dict(os.environ)
    env['LIBPFM_FORCE_PMU'] = args.pmu
    for name in names:
        if '\n' in name or '\t' in name or not name.strip():
            raise Fatal('bad name %r' % name)
    try:
        proc = subprocess.run(cmd, input=''.join(n + '\n' for n in names),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              env=env, universal_newlines=True, check=False)
    except OSError as e:
        raise Fatal('%s: %s' % (' '.join(cmd), e))
    if proc.returncode != 0:
        raise Fatal('%s exited with %d: %s' % (' '.join(cmd),
                                               proc.returncode,
                                               proc.stderr.strip()))
    lines = proc.stdout.split('\n')
    if lines and lines[-1] == '':
        lines.pop()
    if len(lines) != len(names):
        raise Fatal('%s answered %d lines for %d names' %
                    (' '.join(cmd), len(lines), len(names)))
    results = []
    for name, line in zip(names, lines):
        fields = line.split('\t')
        if fields[0] != name or len(fields) < 3:
            raise Fatal('encoder answered %r for %r' % (line, name))
        try:
            results.append(Result(fields))
        except ValueError:
            raise Fatal('encoder answered %r for %r' % (line, name))
    return results


class Tap:
    def __init__(self):
        self.lines = []
        self.count = 0
        self.failed = 0

    def ok(self, passed, desc, diag=()):
        self.count += 1
        if not passed:
            self.failed += 1
        self.lines.append('%sok %d - %s' % ('' if passed else 'not ',
                                            self.count, desc))
        for d in diag:
            self.diag(d)
        return passed

    def diag(self, text):
        for line in str(text).split('\n'):
            self.lines.append('#   ' + line if line else '#')

    def note(self, text):
        self.lines.append('# ' + text)

    def emit(self):
        print('TAP version 13')
        print('1..%d' % self.count)
        for line in self.lines:
            print(line)
        sys.stdout.flush()


def want_str(sel, pmc_map):
    return 'selector 0x%x, pmc_map 0x%x' % (sel, pmc_map)


def run(args):
    pmu = args.pmu
    vendor, machine, _ = PMUS[pmu]
    events = load_json(args.json_root, pmu)
    sample_dir = args.samples or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), 'native-sample')
    samples = read_list(os.path.join(sample_dir, pmu + '.txt'))
    known = {}
    for lineno, fields in read_list(os.path.join(sample_dir,
                                                 pmu + '.known')):
        if len(fields) < 2:
            raise Fatal('%s.known:%d: no reason given' % (pmu, lineno))
        known[fields[0].upper()] = (fields[0], fields[1])

    # Every name, in one run of the encoder: under qemu-user that matters.
    queries = []

    def ask(name):
        queries.append(name)
        return len(queries) - 1

    sample_q = []
    for lineno, fields in samples:
        ours = fields[0]
        perf = fields[1].split()[0] if len(fields) > 1 else \
            perf_name_of(ours)
        sample_q.append((lineno, ours, perf, ask(ours)))
    fixed_q = [(name, ask(name)) for name in FIXED.get(pmu, [])]
    extra_q = [(ours, perf or ours, ask(ours))
               for ours, perf in EXTRA.get(pmu, [])]
    unknown_q = ask(UNKNOWN_NAME)
    # the first sample's event, with a unit mask it lacks
    umask_name = None
    if samples:
        event = re.split(r'[.:]', samples[0][1][0])[0]
        umask_name = event + (':' if vendor == 'arm' else '.') + \
            UNKNOWN_UMASK
        umask_q = ask(umask_name)
    sweep_names = sorted(events)
    sweep_q = [(key, ask(events[key]['EventName'])) for key in sweep_names]

    res = encode(args, machine, queries)
    tap = Tap()
    tap.note('%s: %d core events in %s, encoder %s, machine %s' %
             (pmu, len(events), PMUS[pmu][2], args.encoder, machine))

    # a. the sample
    tap.ok(len(samples) >= 10, '%s: the sample has %d events (10 or more)' %
           (pmu, len(samples)))
    for lineno, ours, perf, q in sample_q:
        r = res[q]
        entry = events.get(perf.upper())
        desc = '%s sample: %s' % (pmu, ours)
        if ours.upper() != perf.upper():
            desc += ' (perf: %s)' % perf
        if entry is None:
            tap.ok(False, desc, ['%s.txt:%d: perf has no core event %s' %
                                 (pmu, lineno, perf)])
            continue
        if refused_why(entry, vendor):
            tap.ok(False, desc, ['%s.txt:%d: %s: %s: not a sample event' %
                                 (pmu, lineno, perf,
                                  refused_why(entry, vendor))])
            continue
        sel, pmc_map = expected(entry, vendor, split_modifiers(ours)[1])
        desc += ' is ' + want_str(sel, pmc_map)
        tap.ok(r.ok and r.sel == sel and r.map == pmc_map, desc,
               [] if r.ok and r.sel == sel and r.map == pmc_map else
               ['got:  ' + str(r), 'want: ' + want_str(sel, pmc_map)])

    # b. the fixed-counter events
    for name, q in fixed_q:
        r = res[q]
        entry = events.get(name.upper())
        desc = '%s fixed: %s' % (pmu, name)
        if entry is None or fixed_counter(entry) is None:
            tap.ok(False, desc, ['perf has no fixed-counter event %s' %
                                 name])
            continue
        sel, pmc_map = expected(entry, vendor)
        desc += ' on fixed counter %d, %s' % (fixed_counter(entry),
                                              want_str(sel, pmc_map))
        good = r.ok and r.sel == sel and r.map == pmc_map
        tap.ok(good, desc, [] if good else
               ['got:  ' + str(r), 'want: ' + want_str(sel, pmc_map)])

    # c. events that need another register
    for ours, perf, q in extra_q:
        r = res[q]
        entry = events.get(perf.upper())
        desc = '%s extra register: %s refused with EOPNOTSUPP' % (pmu, ours)
        if entry is None or not needs_msr(entry):
            tap.ok(False, desc, ['perf has no %s with an MSRIndex' % perf])
            continue
        desc += ' (perf: %s, MSR %s)' % (perf, entry['MSRIndex'])
        tap.ok(not r.ok and r.errno == 'EOPNOTSUPP', desc,
               [] if not r.ok and r.errno == 'EOPNOTSUPP' else
               ['got:  ' + str(r), 'want: EOPNOTSUPP'])

    # e. names that are not there
    r = res[unknown_q]
    good = not r.ok and r.errno in ('EINVAL', 'EOPNOTSUPP') and \
        names_pmu(r.msg, pmu)
    tap.ok(good, '%s unknown: %s refused, the message naming %s' %
           (pmu, UNKNOWN_NAME, pmu),
           [] if good else ['got:  ' + str(r),
                            'want: EINVAL or EOPNOTSUPP, "%s" in the '
                            'message' % pmu])
    if umask_name:
        r = res[umask_q]
        good = not r.ok and r.errno in ('EINVAL', 'EOPNOTSUPP')
        tap.ok(good, '%s unknown: %s refused' % (pmu, umask_name),
               [] if good else ['got:  ' + str(r),
                                'want: EINVAL or EOPNOTSUPP'])

    # d. the sweep, less the names test b holds to their fixed counter
    fixed_names = set(name.upper() for name in FIXED.get(pmu, []))
    both = agree = perf_only = 0
    differ = {}
    for key, q in sweep_q:
        entry = events[key]
        r = res[q]
        name = entry['EventName']
        if key in fixed_names:
            continue
        if not r.ok and r.errno == 'EINVAL' and names_pmu(r.msg, pmu):
            perf_only += 1
            if args.verbose:
                tap.note('%s: only perf knows %s (%s)' % (pmu, name, r.msg))
            continue
        both += 1
        if refused_why(entry, vendor):
            if not r.ok and r.errno == 'EOPNOTSUPP':
                agree += 1
                continue
            why = refused_why(entry, vendor)
            differ[key] = (name, 'got: %s; want: EOPNOTSUPP (%s)' %
                           (r, why))
            continue
        sel, pmc_map = expected(entry, vendor)
        if r.ok and r.sel == sel and r.map == pmc_map:
            agree += 1
            continue
        differ[key] = (name, 'got: %s; want: %s' %
                       (r, want_str(sel, pmc_map)))
    tap.note('%s: %d names both know, %d agree' % (pmu, both, agree))
    tap.note('%s: %d of perf\'s %d names libpfm4 does not know' %
             (pmu, perf_only, len(events)))
    unexpected = [k for k in sorted(differ) if k not in known]
    listed = [k for k in sorted(differ) if k in known]
    diag = ['%s: %s' % differ[k] for k in unexpected]
    if both == 0 and vendor != 'amd':
        diag.append('libpfm4 knows none of perf\'s names: a wrong PMU?')
    tap.ok(not unexpected and (both > 0 or vendor == 'amd'),
           '%s sweep: %d names both know, %d agree, %d known differences, '
           '%d other differences' % (pmu, both, agree, len(listed),
                                     len(unexpected)), diag)
    for key in sorted(known):
        name, reason = known[key]
        if key in differ:
            tap.ok(True, '%s known difference: %s (%s)' %
                   (pmu, name, reason))
            if args.verbose:
                tap.diag(differ[key][1])
        elif key not in events:
            tap.ok(False, '%s known difference: %s' % (pmu, name),
                   ['stale: perf has no core event %s' % name])
        else:
            tap.ok(False, '%s known difference: %s' % (pmu, name),
                   ['stale: it no longer differs (%s)' % reason])
    return tap


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[1],
                                 formatter_class=argparse.
                                 RawDescriptionHelpFormatter)
    ap.add_argument('--encoder', required=True,
                    help='native_encode, as built for the PMU\'s machine')
    ap.add_argument('--json-root', required=True,
                    help='tools/perf/pmu-events/arch of a Linux tree')
    ap.add_argument('--pmu', required=True, choices=sorted(PMUS))
    ap.add_argument('--runner', default='',
                    help='a command to run the encoder with, '
                    'e.g. qemu-aarch64')
    ap.add_argument('--samples', default='',
                    help='the directory of PMU.txt and PMU.known '
                    '(default: native-sample beside this script)')
    ap.add_argument('--verbose', action='store_true',
                    help='name every event only perf knows, and each known '
                    'difference\'s values')
    args = ap.parse_args()
    try:
        tap = run(args)
    except (Fatal, OSError, ValueError) as e:
        print('TAP version 13')
        print('1..0')
        print('Bail out! %s: %s' % (args.pmu, e))
        return 2
    tap.emit()
    return 1 if tap.failed else 0


if __name__ == '__main__':
    sys.exit(main())
