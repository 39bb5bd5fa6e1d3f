#!/usr/bin/python3
"""Holds mwcheck's machine outputs to their documented shapes.

report.json (conform on the model, and conform --device with model and
mutant backends standing in for devices) against report.schema.json; each
verb's --json document against output.schema.json; junit.xml read by
xml.etree and junitparser with the counts the text report gives; two runs
under SOURCE_DATE_EPOCH byte-identical. Fails when a schema and the output
disagree. Usage: schema_test.py MWCHECK SOURCE_DIR
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

import jsonschema
import junitparser

MWCHECK, SRC = sys.argv[1], sys.argv[2]
SCHEMAS = os.path.join(SRC, "cli", "schema")
CORPUS = os.path.join(SRC, "corpus", "conformance")
EPOCH = {"SOURCE_DATE_EPOCH": "1700000000"}
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def mwcheck(*args, env=None, status=None):
    e = dict(os.environ)
    e.update(env or {})
    r = subprocess.run([MWCHECK, *args], capture_output=True, text=True, env=e)
    if status is not None:
        check(r.returncode == status, f"mwcheck {' '.join(args)}: exit {r.returncode}, not {status}: {r.stderr}")
    return r


def load(name):
    with open(os.path.join(SCHEMAS, name)) as f:
        return json.load(f)


REPORT = load("report.schema.json")
OUTPUT = load("output.schema.json")
for s in (REPORT, OUTPUT):
    jsonschema.Draft202012Validator.check_schema(s)


def errors(schema, doc, verb=None):
    if verb:  # one verb's shape out of output.schema.json
        schema = {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": f"#/$defs/{verb}"}
    v = jsonschema.Draft202012Validator(schema)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in v.iter_errors(doc)]


def valid(schema, doc, what, verb=None):
    errs = errors(schema, doc, verb)
    check(not errs, f"{what} disagrees with its schema: {errs[:5]}")


def read(path):
    with open(path, "rb") as f:
        return f.read()


tmp = tempfile.mkdtemp(prefix="mwcheck-schema-", dir=os.environ.get("TMPDIR"))

# ---- report.json of the model, twice: the same bytes ------------------------
model = os.path.join(tmp, "model")


def twice(args, folder, files, status):
    """Runs mwcheck ARGS twice under SOURCE_DATE_EPOCH; the files it writes
    into `folder` must be the same bytes. Returns the first run's stdout."""
    first = mwcheck(*args, env=EPOCH, status=status).stdout
    kept = {f: read(os.path.join(folder, f)) for f in files}
    mwcheck(*args, env=EPOCH, status=status)
    for f in files:
        check(read(os.path.join(folder, f)) == kept[f], f"{f}: two runs under SOURCE_DATE_EPOCH differ")
    return first


text = twice(["conform", "--report", model], model, ("report.json", "junit.xml"), 0)
report = json.loads(read(os.path.join(model, "report.json")))
valid(REPORT, report, "model report.json")
check(report["created"] == "2023-11-14T22:13:20Z", f"created is not SOURCE_DATE_EPOCH's: {report['created']}")
check(report["command"][:2] == ["mwcheck", "conform"], f"command: {report['command']}")

# The schema catches what the output might get wrong.
for broken in ({k: v for k, v in report.items() if k != "created"},
               {**report, "surprise": 1},
               {**report, "backends": [{**report["backends"][0], "traces": [{"trace": "t"}]}]},
               {**report, "kind": "device"}):
    check(errors(REPORT, broken), "the schema accepts a report.json it should refuse")

# junit.xml: the counts of the text report, times, classnames.
m = re.search(r"conform: (\d+) traces x (\d+) profiles: (\d+) passed, (\d+) failed", text)
check(m is not None, f"no summary line in: {text[-300:]}")
CLASSNAME = re.compile(r"^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$")


def junit_counts(path):
    root = ET.parse(path).getroot()
    check(root.tag == "testsuites" and "time" in root.attrib, "testsuites without time")
    n = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for suite in root.iter("testsuite"):
        check("time" in suite.attrib, f"testsuite {suite.get('name')} without time")
        cases = list(suite.iter("testcase"))
        check(int(suite.get("tests")) == len(cases), f"testsuite {suite.get('name')}: tests= is not its testcases")
        for c in cases:
            check("time" in c.attrib, f"testcase {c.get('name')} without time")
            check(CLASSNAME.match(c.get("classname", "")) is not None, f"classname {c.get('classname')!r}")
            n["tests"] += 1
            n["failures"] += len(c.findall("failure"))
            n["errors"] += len(c.findall("error"))
            n["skipped"] += len(c.findall("skipped"))
        for k in ("failures", "errors", "skipped"):
            check(int(suite.get(k)) == sum(len(c.findall(k.rstrip("s") if k != "skipped" else "skipped")) for c in cases),
                  f"testsuite {suite.get('name')}: {k}= disagrees with its testcases")
    # A second, common reader agrees.
    xml = junitparser.JUnitXml.fromfile(path)
    jp = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for suite in xml:
        for k in jp:
            jp[k] += getattr(suite, k)
    check(jp == n, f"junitparser reads {jp}, xml.etree {n}")
    return n


if m:
    n = junit_counts(os.path.join(model, "junit.xml"))
    traces, profiles, passed, failed = map(int, m.groups())
    check(n["tests"] == traces * profiles and n["failures"] == failed and n["errors"] == 0,
          f"model junit.xml {n} vs text {m.group(0)}")

# ---- report.json of conform --device: models stand in for devices --------
dev_corpus = os.path.join(tmp, "corpus")
os.makedirs(dev_corpus)
for t in ("010_bind_type1_basic.mwt", "109_knob_remote_range.mwt", "106_knob_type2_invalidator.mwt"):
    shutil.copy(os.path.join(CORPUS, t), dev_corpus)
dev = os.path.join(tmp, "device")
args = ["conform", "--device", "profile:verbs", "--device", "profile:rxe", "--device", "mutant:stale_rkey",
        "--corpus", dev_corpus, "--attacks", "none", "--shrink-seconds", "5"]
text = twice(args + ["--report", dev + "1", "--export", os.path.join(tmp, "exports")], dev + "1",
             ("report.json", "junit.xml", "report.html"), 1)
report = json.loads(read(os.path.join(dev + "1", "report.json")))
valid(REPORT, report, "device report.json")
check(report["kind"] == "device" and report["findings"], "device report.json without findings")
# With a baseline, the baseline section too.
mwcheck("conform", "--device", "profile:verbs", "--corpus", dev_corpus, "--attacks", "none",
        "--baseline", os.path.join(dev + "1", "report.json"), "--report", dev + "3", env=EPOCH, status=0)
based = json.loads(read(os.path.join(dev + "3", "report.json")))
valid(REPORT, based, "device report.json with a baseline")
check("baseline" in based and based["baseline"]["fixed"], "no fixed findings against the baseline")

# junit.xml: one testcase per finding of each device, as the text counts them.
n = junit_counts(os.path.join(dev + "1", "junit.xml"))
per_device = sum(len(f["devices"]) for f in report["findings"])
unsupported = sum(len(f["devices"]) for f in report["findings"] if f["severity"] == "unsupported")
hard = sum(len(f["devices"]) for f in report["findings"] if f["severity"] in ("crash", "hang"))
check(n["tests"] == per_device + len(report["devices"]), f"device junit tests {n} vs {per_device} findings")
check(n["skipped"] == unsupported and n["errors"] == hard and n["failures"] == per_device - unsupported - hard,
      f"device junit {n} vs the report's findings")
m = re.search(r"== findings: (\d+) findings? \(([^)]*)\); (?:nothing unsupported|not run, listed apart: ([^=]*)) ==",
              text)
check(m is not None, f"no findings line in: {text[:300]}")
if m:
    by = {k: int(v) for v, k in (x.split(" ") for x in m.group(2).split(", "))}
    check(sum(by.values()) == int(m.group(1)) and by == {k: report["summary"][k] for k in by},
          f"text {m.group(0)} vs summary {report['summary']}")
    # What was not run, by whose lack, adds up to the unsupported findings.
    apart = sum(int(x.split(" ")[0]) for x in m.group(3).split(", ")) if m.group(3) else 0
    check(apart == sum(1 for f in report["findings"] if f["severity"] == "unsupported"),
          f"text {m.group(0)} vs the report's unsupported findings")

# ---- each verb's --json ------------------------------------------------------
trace = os.path.join(CORPUS, "109_knob_remote_range.mwt")
mwb = os.path.join(tmp, "g.mwb")
mwcheck("gen", "-n", "2000", "-o", mwb, status=0)
verbs = [
    ("run", ["run", "--json", trace], 0),
    ("run", ["run", "--json", "--quiet", "--check", "-p", "rxe", trace], 0),
    ("diff", ["diff", "--json", "-a", "verbs", "-a", "rxe", trace, os.path.join(CORPUS, "010_bind_type1_basic.mwt")], 1),
    ("replay", ["replay", "--json", mwb], 0),
    ("replay", ["replay", "--json", "--quiet", mwb], 0),
    ("fuzz", ["fuzz", "--json", "-a", "verbs", "-a", "mutant:stale_rkey", "--runs", "300", "--corpus", "none",
              "--keep-going"], None),
    ("power", ["power", "--json", "--seeds", "1", "--budget", "0.05", "--mutant", "stale_rkey"], None),
    ("prove", ["prove", "--json"], 0),
    ("prove_traces", ["prove", "--traces", "1", "--json"], 0),
    ("profiles", ["profiles", "--json"], 0),
    ("mutants", ["mutants", "--json"], 0),
    ("devices", ["devices", "--json"], 0),
]
# A build without Z3 (MWCHECK_PROVE=OFF) has no prove.
if mwcheck("prove", "--help").returncode != 0:
    verbs = [v for v in verbs if v[1][0] != "prove"]
seen = set()
for verb, a, status in verbs:
    r = mwcheck(*a, status=status)
    plain = [x for x in a if x != "--json"]
    if verb not in ("fuzz", "power"):  # (their results vary with time)
        check(mwcheck(*plain).returncode == r.returncode, f"mwcheck {' '.join(a)}: --json changed the exit status")
    try:
        doc = json.loads(r.stdout)
    except json.JSONDecodeError as e:
        check(False, f"mwcheck {' '.join(a)}: stdout is no one JSON document: {e}: {r.stdout[:200]}")
        continue
    valid(OUTPUT, doc, f"mwcheck {' '.join(a)}", verb)
    seen.add(verb)
check(seen == {v[0] for v in verbs} and {v[0] for v in verbs} | {"prove", "prove_traces"} ==
      set(OUTPUT["$defs"]) - {"count", "strings", "seconds", "mismatch", "outcome", "detection", "worst"},
      f"verbs without a --json check: {set(OUTPUT['$defs']) - seen}")
run = json.loads(mwcheck("run", "--json", trace).stdout)
check(run["files"][0]["ops"] and run["files"][0]["ops"][0]["op"] == 1, "run --json lists no ops")
check(errors(OUTPUT, {**run, "extra": 1}, "run"), "the schema accepts a run document it should refuse")

# A malformed SOURCE_DATE_EPOCH is an error, not the clock.
r = mwcheck("conform", "--report", os.path.join(tmp, "bad"), env={"SOURCE_DATE_EPOCH": "yesterday"}, status=2)
check("SOURCE_DATE_EPOCH" in r.stderr, f"no word of SOURCE_DATE_EPOCH: {r.stderr}")

shutil.rmtree(tmp)
if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("schemas, --json documents and junit.xml agree")
