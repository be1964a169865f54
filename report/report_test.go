package report

import (
	"bytes"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestSummaryRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, SummaryFile)
	want := sampleResults().Summary
	cost := Stat{Mean: 0.4, Stderr: 0.01}
	a := want.Algorithms["ckb-ucb"]
	a.Cost = &cost
	want.Algorithms["ckb-ucb"] = a
	if err := WriteSummary(path, &want); err != nil {
		t.Fatal(err)
	}
	got, err := ReadSummary(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("round trip:\n got %+v\nwant %+v", *got, want)
	}
	raw, _ := os.ReadFile(path)
	for _, s := range []string{`"problem": "rkhs-synthetic"`, `"violation_count": {`, `"seconds_per_round": 0.0000125`, `"cost": {`} {
		if !bytes.Contains(raw, []byte(s)) {
			t.Errorf("summary.json lacks %s:\n%s", s, raw)
		}
	}
	// cost is omitted where nil.
	if n := bytes.Count(raw, []byte(`"cost"`)); n != 1 {
		t.Errorf("summary.json has %d cost fields, want 1", n)
	}
}

func TestReadSummaryDesignExample(t *testing.T) {
	// The example of DESIGN.md, whose params are numbers.
	const design = `{"problem": "rkhs-synthetic", "params": {"h": 0.5}, "horizon": 10000, "trials": 50, "seed": 1,
 "algorithms": {"ckb-ucb": {"regret": {"mean": 0, "stderr": 0},
                            "violation_soft": {"mean": 0, "stderr": 0},
                            "violation_hard": {"mean": 0, "stderr": 0},
                            "violation_count": {"mean": 0, "stderr": 0},
                            "seconds_per_round": 0}}}`
	path := filepath.Join(t.TempDir(), "summary.json")
	os.WriteFile(path, []byte(design), 0o644)
	s, err := ReadSummary(path)
	if err != nil {
		t.Fatal(err)
	}
	if s.Params["h"] != "0.5" || s.Horizon != 10000 || s.Trials != 50 || len(s.Algorithms) != 1 {
		t.Errorf("got %+v", s)
	}
}

func TestReadSummaryErrors(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]string{
		"syntax":     "{\n\"problem\": \"p\",\n\"horizon\": ,\n}",
		"type":       `{"problem": "p", "horizon": "ten", "trials": 1, "algorithms": {}}`,
		"noproblem":  `{"horizon": 10, "trials": 1, "algorithms": {}}`,
		"nohorizon":  `{"problem": "p", "trials": 1, "algorithms": {}}`,
		"noalgos":    `{"problem": "p", "horizon": 10, "trials": 1}`,
		"paramarray": `{"problem": "p", "params": {"h": [1]}, "horizon": 10, "trials": 1, "algorithms": {}}`,
	}
	wantIn := map[string]string{
		"syntax": "line 3", "type": "horizon", "noproblem": `missing "problem"`,
		"nohorizon": `"horizon" is 0`, "noalgos": `missing "algorithms"`, "paramarray": `params["h"]`,
	}
	for name, content := range cases {
		path := filepath.Join(dir, name+".json")
		os.WriteFile(path, []byte(content), 0o644)
		_, err := ReadSummary(path)
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), wantIn[name]) {
			t.Errorf("%s: error %q should name %s and contain %q", name, err, path, wantIn[name])
		}
	}
	if _, err := ReadSummary(filepath.Join(dir, "absent.json")); err == nil || !strings.Contains(err.Error(), "absent.json") {
		t.Errorf("missing file: error %v", err)
	}
}

func TestWriteSummaryNaN(t *testing.T) {
	s := sampleResults().Summary
	a := s.Algorithms["opb"]
	a.Regret.Stderr = math.NaN()
	s.Algorithms["opb"] = a
	path := filepath.Join(t.TempDir(), SummaryFile)
	err := WriteSummary(path, &s)
	if err == nil || !strings.Contains(err.Error(), `"opb"`) || !strings.Contains(err.Error(), "regret stderr") {
		t.Errorf("error %v, want one naming opb and regret stderr", err)
	}
}

func TestCurvesRoundTrip(t *testing.T) {
	in := sampleResults().Curves
	// Awkward values must survive exactly.
	in[0].Mean[1] = 1.0 / 3
	in[0].Stderr[2] = 1e-300
	in[1].Mean[0] = math.Inf(1)
	in = append(in, Curve{Algorithm: `odd,"name"`, Metric: "cost", Rounds: []int{5}, Mean: []float64{-2.5}, Stderr: []float64{0}})
	path := filepath.Join(t.TempDir(), CurvesFile)
	if err := WriteCurves(path, in); err != nil {
		t.Fatal(err)
	}
	got, err := ReadCurves(path)
	if err != nil {
		t.Fatal(err)
	}
	want := sortedCurves(in)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip differs:\n got %+v\nwant %+v", got, want)
	}

	raw, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if lines[0] != "algorithm,round,metric,mean,stderr" {
		t.Errorf("header %q", lines[0])
	}
	nrows := 0
	for _, c := range in {
		nrows += len(c.Rounds)
	}
	if len(lines) != nrows+1 {
		t.Errorf("%d lines, want %d", len(lines), nrows+1)
	}
	// Sorted by algorithm, then metric, then round.
	if !strings.HasPrefix(lines[1], "ckb-ucb,1,regret,") || !strings.HasPrefix(lines[2], "ckb-ucb,10,regret,") {
		t.Errorf("first rows %q, %q", lines[1], lines[2])
	}
	if !strings.HasPrefix(lines[len(lines)-1], "rpol-ucb,1000,violation_soft,") {
		t.Errorf("last row %q", lines[len(lines)-1])
	}
}

func TestReadCurvesUnsortedRows(t *testing.T) {
	const data = "algorithm,round,metric,mean,stderr\nb,10,regret,2,0.2\na,1,regret,1,0\nb,1,regret,1,0.1\n"
	path := filepath.Join(t.TempDir(), "c.csv")
	os.WriteFile(path, []byte(data), 0o644)
	got, err := ReadCurves(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []Curve{
		{Algorithm: "a", Metric: "regret", Rounds: []int{1}, Mean: []float64{1}, Stderr: []float64{0}},
		{Algorithm: "b", Metric: "regret", Rounds: []int{1, 10}, Mean: []float64{1, 2}, Stderr: []float64{0.1, 0.2}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestReadCurvesErrors(t *testing.T) {
	const head = "algorithm,round,metric,mean,stderr\n"
	cases := map[string]struct{ data, want string }{
		"empty":     {"", "empty file"},
		"header":    {"alg,round,metric,mean,stderr\n", "line 1: header"},
		"fields":    {head + "a,1,regret,1\n", "line 2"},
		"round":     {head + "a,0,regret,1,0\n", `line 2: round "0"`},
		"mean":      {head + "a,1,regret,x,0\n", `line 2: mean "x"`},
		"stderr":    {head + "a,1,regret,1,\n", `line 2: stderr ""`},
		"duplicate": {head + "a,1,regret,1,0\na,2,regret,1,0\na,1,regret,2,0\n", "line 4: round 1"},
	}
	dir := t.TempDir()
	for name, c := range cases {
		path := filepath.Join(dir, name+".csv")
		os.WriteFile(path, []byte(c.data), 0o644)
		_, err := ReadCurves(path)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming %s and containing %q", name, err, path, c.want)
		}
	}
}

func TestWriteCurvesInvalid(t *testing.T) {
	path := filepath.Join(t.TempDir(), CurvesFile)
	bad := []Curve{{Algorithm: "a", Metric: "regret", Rounds: []int{1, 2}, Mean: []float64{1}, Stderr: []float64{0, 0}}}
	if err := WriteCurves(path, bad); err == nil || !strings.Contains(err.Error(), CurvesFile) {
		t.Errorf("length mismatch: error %v", err)
	}
	bad = []Curve{{Algorithm: "a", Metric: "regret", Rounds: []int{2, 2}, Mean: []float64{1, 1}, Stderr: []float64{0, 0}}}
	if err := WriteCurves(path, bad); err == nil {
		t.Error("non-increasing rounds: no error")
	}
}

func TestWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out", "nested")
	res := sampleResults()
	if err := Write(dir, res); err != nil {
		t.Fatal(err)
	}
	var figures []string
	for _, m := range []string{"regret", "regret_avg", "violation_soft", "violation_hard", "violation_hard_avg", "violation_count"} {
		figures = append(figures, m+".svg", m+".png")
	}
	for _, name := range append([]string{SummaryFile, CurvesFile, ReportFile}, figures...) {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("missing %s: %v", name, err)
			continue
		}
		if fi.Size() == 0 {
			t.Errorf("%s is empty", name)
		}
	}
	// No figure for absent metrics, no time average for the others.
	for _, name := range []string{"cost.svg", "violation_soft_avg.png", "violation_count_avg.svg"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("unexpected %s", name)
		}
	}
	for _, name := range figures {
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		if strings.HasSuffix(name, ".png") {
			img, err := png.Decode(bytes.NewReader(raw))
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			if b := img.Bounds(); b.Dx() != 800 || b.Dy() != 500 {
				t.Errorf("%s: %v, want 800×500", name, b)
			}
		} else if !bytes.Contains(raw, []byte("<svg")) || !bytes.Contains(raw, []byte("rpol-ucb")) {
			t.Errorf("%s: not an SVG with the legend", name)
		}
	}
	// The files read back.
	s, err := ReadSummary(filepath.Join(dir, SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*s, res.Summary) {
		t.Errorf("summary differs")
	}
	cs, err := ReadCurves(filepath.Join(dir, CurvesFile))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cs, sortedCurves(res.Curves)) {
		t.Errorf("curves differ")
	}
}

func TestWriteErrorsNameFile(t *testing.T) {
	dir := t.TempDir()
	// A directory where curves.csv should be makes that file fail, not the others.
	os.Mkdir(filepath.Join(dir, CurvesFile), 0o755)
	err := Write(dir, sampleResults())
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, CurvesFile)) {
		t.Fatalf("error %v, want one naming curves.csv", err)
	}
	for _, name := range []string{SummaryFile, ReportFile} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s not written: %v", name, err)
		}
	}
}

func TestReportMarkdown(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir, sampleResults()); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	md := string(raw)
	for _, want := range []string{
		"# RKHS synthetic (paper 001, figure 1)\n",
		"- problem: `rkhs-synthetic`",
		"`h=0.5`, `m=1`",
		"- horizon: 1000 rounds",
		"- trials: 20",
		"- seed: 1",
		"cbandit run --problem rkhs-synthetic --param h=0.5 --param m=1 --algos ckb-ucb,rpol-ucb --trials 20 --horizon 1000 --seed 1",
		"| algorithm | regret | violation_soft | violation_hard | violation_count | µs/round |\n",
		"| ckb-ucb | 401.2 ± 12.35 | 0.25 ± 0.0625 | 60 ± 3 | 12 ± 1 | 3 |\n",
		"| rpol-ucb | 10.5 ± 0.5 | 2 ± 1 | 95.25 ± 4.125 | 17 ± 2.5 | 12.5 |\n",
		"## Ours vs paper",
		"Paper 001, Table 2",
		"| rpol-ucb | regret | 11 | 10.5 ± 0.5 | agrees |\n",
		"| rpol-ucb | violation_soft | 5 | 2 ± 1 | differs |\n",
		"| opb | regret | 3 | — | not run |\n",
		"![regret](regret.svg)",
		"![regret_avg](regret_avg.svg)",
		"![violation_hard_avg](violation_hard_avg.svg)",
		"## Notes\n\nThe paper leaves β open; we use β = 2.\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	if strings.Contains(md, "| cost") {
		t.Error("cost column without cost")
	}
	// Figures come before the notes, the paper table before the figures.
	if i, j, k := strings.Index(md, "Ours vs paper"), strings.Index(md, "![regret]"), strings.Index(md, "## Notes"); !(i < j && j < k) {
		t.Errorf("section order: paper %d, figures %d, notes %d", i, j, k)
	}
	if testing.Verbose() {
		t.Log("\n" + md)
	}
}

func TestReportCostColumnAndNoPaper(t *testing.T) {
	res := sampleResults()
	res.Paper = nil
	a := res.Summary.Algorithms["ckb-ucb"]
	a.Cost = &Stat{Mean: 0.45, Stderr: 0.01}
	res.Summary.Algorithms["ckb-ucb"] = a
	var b strings.Builder
	if err := writeMarkdown(&b, res, nil); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"| violation_count | cost | µs/round |",
		"| 12 ± 1 | 0.45 ± 0.01 | 3 |",
		"| 17 ± 2.5 | — | 12.5 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "Ours vs paper") {
		t.Error("paper section without paper values")
	}
}

func TestAgrees(t *testing.T) {
	cases := []struct {
		paper float64
		ours  Stat
		want  bool
	}{
		{11, Stat{Mean: 10, Stderr: 0.5}, true},     // exactly 2 stderr
		{11.01, Stat{Mean: 10, Stderr: 0.5}, false}, // just outside
		{9, Stat{Mean: 10, Stderr: 0.5}, true},
		{5, Stat{Mean: 2, Stderr: 1}, false},
		{3, Stat{Mean: 3, Stderr: 0}, true},
		{3.1, Stat{Mean: 3, Stderr: 0}, false},
	}
	for _, c := range cases {
		if got := Agrees(c.paper, c.ours); got != c.want {
			t.Errorf("Agrees(%v, %+v) = %v", c.paper, c.ours, got)
		}
	}
}

func TestFormatNum(t *testing.T) {
	for x, want := range map[float64]string{
		0: "0", 10.5: "10.5", 401.2345: "401.2", 12.3456: "12.35", 12345.6: "12346",
		0.0625: "0.0625", 1e-5: "1.000e-05", 2.5e7: "2.500e+07", -3.14159: "-3.142",
	} {
		if got := formatNum(x); got != want {
			t.Errorf("formatNum(%v) = %q, want %q", x, got, want)
		}
	}
}

func TestFigure(t *testing.T) {
	cs := sampleResults().Curves
	if _, err := Figure(cs, "cost", "t", "y", false); err == nil {
		t.Error("Figure of an absent metric: no error")
	}
	cs[0].Mean[3] = math.NaN() // skipped, not fatal
	cs[0].Stderr[4] = math.Inf(1)
	p, err := Figure(cs, MetricRegret, "title", "Cumulative regret", true)
	if err != nil {
		t.Fatal(err)
	}
	if p.Title.Text != "title" || p.X.Label.Text != "round" || p.Y.Label.Text != "Cumulative regret" {
		t.Errorf("labels %q %q %q", p.Title.Text, p.X.Label.Text, p.Y.Label.Text)
	}
	// The largest time average is at t = 1: 12.8 + 0.8·sqrt(13.8) ≈ 15.8
	// (the cumulative curves reach about 400).
	if p.Y.Max > 16 || p.Y.Max < 12.8 {
		t.Errorf("time-average y range up to %v", p.Y.Max)
	}
}

func TestBoxFigure(t *testing.T) {
	groups := map[string][][]float64{
		"a": {{1, 2, 3, 4, 10}, {5, 6, 7, 8}, {}},
		"b": {{2, 3, 3, 4}, {4, 5, 6, 20}, {9, 9.5, 10}},
	}
	p, err := BoxFigure(groups, []int{10, 100, 1000}, "boxes", "regret")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := SavePlot(p, dir, "box"); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"box.svg", "box.png"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	if _, err := BoxFigure(map[string][][]float64{"a": {{1}}}, []int{1, 2}, "", ""); err == nil {
		t.Error("mismatched checkpoints: no error")
	}
	if _, err := BoxFigure(map[string][][]float64{"a": {{}}}, []int{1}, "", ""); err == nil {
		t.Error("all empty: no error")
	}
}

// Agent diagnostics round-trip through summary.json, must be finite, and
// appear in report.md only when some algorithm reports them.
func TestDiagnostics(t *testing.T) {
	res := sampleResults()
	dir := t.TempDir()
	if err := Write(filepath.Join(dir, "none"), res); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "none", SummaryFile))
	md, _ := os.ReadFile(filepath.Join(dir, "none", ReportFile))
	if bytes.Contains(raw, []byte(`"diagnostics"`)) || bytes.Contains(md, []byte("Agent diagnostics")) {
		t.Fatal("diagnostics written for agents that report none")
	}
	a := res.Summary.Algorithms["ckb-ucb"]
	a.Diagnostics = map[string]Stat{"uncertified_fraction": Describe([]float64{0.25, 0.5, 0.75}), "gap_max": Describe([]float64{0.1, 0.4, 0.2})}
	res.Summary.Algorithms["ckb-ucb"] = a
	if err := Write(filepath.Join(dir, "with"), res); err != nil {
		t.Fatal(err)
	}
	s, err := ReadSummary(filepath.Join(dir, "with", SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*s, res.Summary) {
		t.Errorf("summary with diagnostics differs after the round trip: %+v", s.Algorithms["ckb-ucb"].Diagnostics)
	}
	raw, _ = os.ReadFile(filepath.Join(dir, "with", SummaryFile))
	if n := bytes.Count(raw, []byte(`"diagnostics"`)); n != 1 {
		t.Errorf("summary.json has %d diagnostics fields, want 1", n)
	}
	md, _ = os.ReadFile(filepath.Join(dir, "with", ReportFile))
	for _, want := range []string{"## Agent diagnostics (end of each trial, over 20 trials)",
		"| ckb-ucb | gap_max | 0.2333 ± 0.08819 | 0.2 [0.15, 0.3] | 0.4 |",
		"| ckb-ucb | uncertified_fraction | 0.5 ± 0.1443 | 0.5 [0.375, 0.625] | 0.75 |"} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	a.Diagnostics["gap_max"] = Describe([]float64{0.1, math.Inf(1)})
	if err := WriteSummary(filepath.Join(dir, "bad.json"), &res.Summary); err == nil || !strings.Contains(err.Error(), "diagnostic gap_max") {
		t.Errorf("infinite diagnostic: err = %v, want one naming diagnostic gap_max", err)
	}
}
