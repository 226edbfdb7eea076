package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/cuzk/cuzk/core/config"
)

// invocation is what every command shares, written once: its flag set,
// the files it reads and writes (outputs checked against the inputs
// before any work, outputs.go), --config and --quiet where it takes them,
// and, once started, the configuration, the progress meter and stdout
// (wrapped so that results and the live progress line do not mix).
type invocation struct {
	name     string
	fs       *pflag.FlagSet
	required []string
	operands string // the synopsis of operands after the flags ("FILE..."); "" for none
	inputs   []pathFlag
	outputs  []pathFlag
	cfgPath  *string
	quiet    *bool
	cacheDir *string // withCache
	cacheMax *string

	args   []string // the operands, once started
	cfg    config.Config
	pc     *paramCache // withCache
	m      *meter
	stdout io.Writer
}

// pathFlag is a flag naming a file the command reads or writes.
type pathFlag struct {
	flag  string // "--params"
	value *string
	// list: comma-separated paths (bench --wtns).
	list bool
	// files: an output directory and the files the command writes in it.
	files []string
}

// paths lists the paths the flag names ("" when not given: none).
func (p pathFlag) paths() []string {
	if *p.value == "" {
		return nil
	}
	if p.list {
		return strings.Split(*p.value, ",")
	}
	return []string{*p.value}
}

// command returns the invocation of the named command, its flags to be
// declared next.
func command(name string) *invocation {
	fs := pflag.NewFlagSet("cuzk "+name, pflag.ContinueOnError)
	fs.SetOutput(progressOut) // the command's stderr
	return &invocation{name: name, fs: fs}
}

// input declares a flag naming a file the command reads.
func (c *invocation) input(name, usage string) *string {
	v := c.fs.String(name, "", usage)
	c.inputs = append(c.inputs, pathFlag{flag: "--" + name, value: v})
	return v
}

// inputList declares a flag naming comma-separated files the command
// reads.
func (c *invocation) inputList(name, usage string) *string {
	v := c.fs.String(name, "", usage)
	c.inputs = append(c.inputs, pathFlag{flag: "--" + name, value: v, list: true})
	return v
}

// output declares a flag naming a file the command writes.
func (c *invocation) output(name, usage string) *string {
	v := c.fs.String(name, "", usage)
	c.outputs = append(c.outputs, pathFlag{flag: "--" + name, value: v})
	return v
}

// outputDir declares a flag naming a directory the command writes files
// into (made when missing).
func (c *invocation) outputDir(name, usage string, files ...string) *string {
	v := c.fs.String(name, "", usage)
	c.outputs = append(c.outputs, pathFlag{flag: "--" + name, value: v, files: files})
	return v
}

// withConfig declares --config, read when the command starts.
func (c *invocation) withConfig(usage string) {
	c.cfgPath = c.input("config", usage)
}

// withQuiet declares --quiet.
func (c *invocation) withQuiet() {
	c.quiet = c.fs.Bool("quiet", false, quietHelp)
}

// withCache declares --cache and --cache-max: the parameter cache of demo
// and bench (cache.go), opened when the command starts.
func (c *invocation) withCache(usage string) {
	c.cacheDir = c.fs.String("cache", defaultCache(), usage)
	c.cacheMax = c.fs.String("cache-max", "", cacheMaxHelp)
}

// require marks flags that must be given; -h says so.
func (c *invocation) require(names ...string) { c.required = append(c.required, names...) }

// takeOperands makes the command take operands after its flags (synopsis
// names them in -h, e.g. "FILE..."); at least one is required.
func (c *invocation) takeOperands(synopsis string) { c.operands = synopsis }

// parse parses args: the flags, the required ones given, the operands.
// Flags may come before, after or among the operands (cuzk info c.params
// --json); "--" ends the flags.
func (c *invocation) parse(args []string) error {
	setUsage(c.fs, c.operands, c.required)
	for _, a := range args {
		if a == "--" {
			break
		}
		// Go's flag package took -name too: say how pflag spells it
		// rather than "unknown shorthand flag: 'j' in -json"
		if name, _, _ := strings.Cut(strings.TrimPrefix(a, "-"), "="); len(a) > 2 && a[0] == '-' && a[1] != '-' && c.fs.Lookup(name) != nil {
			return inputErr(fmt.Errorf("%s: flags are written with two dashes: --%s", a, strings.TrimPrefix(a, "-")))
		}
	}
	if err := c.fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return err
		}
		return inputErr(err)
	}
	switch {
	case c.operands == "" && c.fs.NArg() > 0:
		return inputErr(fmt.Errorf("unexpected argument %q", c.fs.Arg(0)))
	case c.operands != "" && c.fs.NArg() == 0:
		return inputErr(fmt.Errorf("%s is required", c.operands))
	}
	for _, name := range c.required {
		if c.fs.Lookup(name).Value.String() == "" {
			return inputErr(fmt.Errorf("--%s is required", name))
		}
	}
	c.args = c.fs.Args()
	return nil
}

// start parses args and readies the work, before any of it is done: the
// outputs checked (each can be written and destroys no input), the
// configuration read, the meter opened on stderr and stdout wrapped.
// Close the invocation when the command ends.
func (c *invocation) start(args []string, stdout io.Writer) error {
	c.fs.SetOutput(stdout) // -h asked for: the help is the result
	if err := c.parse(args); err != nil {
		return err
	}
	if err := checkOutputs(c.inputs, c.outputs); err != nil {
		return err
	}
	c.cfg = config.Default()
	if c.cfgPath != nil {
		cfg, err := loadConfig(*c.cfgPath)
		if err != nil {
			return err
		}
		c.cfg = cfg
	}
	if c.cacheDir != nil {
		pc, err := openCache(*c.cacheDir, *c.cacheMax)
		if err != nil {
			return err
		}
		c.pc = pc
	}
	c.m = newMeter(progressOut, c.quiet != nil && *c.quiet)
	c.stdout = c.m.writer(stdout)
	return nil
}

// engineLogger is the engine's log on the command's stderr, in
// logging.format: at logging.level when --config was given (its default,
// info, shows each device's plan), else (and with --quiet) warnings only,
// so that a plain run prints its results and no log. Results go to
// stdout; logs never do.
func (c *invocation) engineLogger() *slog.Logger {
	l := c.cfg.Logging
	level := slog.LevelWarn
	if c.cfgPath != nil && *c.cfgPath != "" {
		level = l.SlogLevel()
	}
	if c.quiet != nil && *c.quiet {
		level = max(level, slog.LevelWarn) // --quiet: warnings and errors only
	}
	return slog.New(l.Handler(c.m.logWriter(), &slog.HandlerOptions{Level: level}))
}

// close stops the meter; safe more than once, and before start.
func (c *invocation) close() {
	if c.m != nil {
		c.m.close()
	}
}

// setUsage makes -h list the flags, the required ones marked.
func setUsage(fs *pflag.FlagSet, synopsis string, required []string) {
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "usage: %s [flags]", fs.Name())
		if synopsis != "" {
			fmt.Fprintf(w, " %s", synopsis)
		}
		fmt.Fprintln(w)
		fs.VisitAll(func(f *pflag.Flag) {
			req := ""
			if slices.Contains(required, f.Name) {
				req = " (required)"
			}
			name, usage := pflag.UnquoteUsage(f)
			fmt.Fprintf(w, "  --%s %s%s\n    \t%s", f.Name, name, req, usage)
			if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
				fmt.Fprintf(w, " (default %s)", f.DefValue)
			}
			fmt.Fprintln(w)
		})
	}
}
