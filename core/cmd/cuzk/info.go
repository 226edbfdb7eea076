package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/cuzk/cuzk/core/filekind"
	"github.com/cuzk/cuzk/core/units"
)

// fileReport is one file of cuzk info --json; its keys, and the counts'
// (filekind.Count.Key), are snake_case (docs/cli.md lists them).
type fileReport struct {
	Path        string           `json:"path"`
	Kind        string           `json:"kind"`
	Description string           `json:"description"`
	Size        int64            `json:"size"`
	Field       string           `json:"field,omitempty"`
	Version     int              `json:"version,omitempty"`
	Counts      map[string]int64 `json:"counts,omitempty"`
	Points      map[string]int64 `json:"points,omitempty"`
	Problems    []string         `json:"problems,omitempty"`
	Error       string           `json:"error,omitempty"`
}

// runInfo says what each file is (filekind.Sniff) and its sizes. It fails
// (bad input) when a file cannot be read; a file of no known kind is
// reported as such.
func runInfo(args []string, stdout io.Writer) error {
	c := command("info")
	asJSON := c.fs.Bool("json", false, "print a JSON array, one object per file (kind, sizes, counts, problems)")
	c.takeOperands("FILE...")
	defer c.close()
	if err := c.start(args, stdout); err != nil {
		return err
	}
	paths, stdout := c.args, c.stdout
	var reports []fileReport
	var failed []string
	for _, path := range paths {
		info, err := filekind.SniffFile(path)
		if err != nil {
			failed = append(failed, path)
			reports = append(reports, fileReport{Path: path, Error: err.Error()})
			if !*asJSON {
				fmt.Fprintf(progressOut, "cuzk info: %v\n", err)
			}
			continue
		}
		if *asJSON {
			reports = append(reports, report(path, info))
			continue
		}
		printInfo(stdout, path, info)
	}
	if *asJSON {
		js, _ := json.MarshalIndent(reports, "", "  ")
		fmt.Fprintf(stdout, "%s\n", js)
	}
	if len(failed) > 0 {
		return inputErr(fmt.Errorf("%d of %d files could not be read", len(failed), len(paths)))
	}
	return nil
}

func report(path string, info filekind.Info) fileReport {
	r := fileReport{Path: path, Kind: info.Kind.ID(), Description: info.Kind.String(), Size: info.Size,
		Field: info.Field, Version: info.Version, Problems: info.Problems}
	for _, c := range info.Counts {
		if r.Counts == nil {
			r.Counts = map[string]int64{}
		}
		r.Counts[c.Key()] = c.N
	}
	for _, c := range info.Points {
		if r.Points == nil {
			r.Points = map[string]int64{}
		}
		r.Points[c.Key()] = c.N
	}
	return r
}

// printInfo writes a file's description: its kind, then one line a
// property.
func printInfo(w io.Writer, path string, info filekind.Info) {
	fmt.Fprintf(w, "%s: %s\n", path, info.Kind)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  size\t%d bytes (%s)\n", info.Size, units.Bytes(uint64(info.Size)))
	if info.Field != "" {
		fmt.Fprintf(tw, "  field\t%s\n", info.Field)
	}
	if info.Version != 0 {
		fmt.Fprintf(tw, "  version\t%d\n", info.Version)
	}
	for _, c := range info.Counts {
		fmt.Fprintf(tw, "  %s\t%d\n", c.Name, c.N)
	}
	if len(info.Points) > 0 {
		var pts []string
		for _, p := range info.Points {
			pts = append(pts, fmt.Sprintf("%s %d", p.Name, p.N))
		}
		fmt.Fprintf(tw, "  points\t%s\n", strings.Join(pts, ", "))
	}
	for _, p := range info.Problems {
		fmt.Fprintf(tw, "  problem\t%s\n", p)
	}
	if info.Kind == filekind.Unknown && len(info.Head) > 0 {
		fmt.Fprintf(tw, "  starts with\t% x\n", info.Head)
	}
	tw.Flush()
}
