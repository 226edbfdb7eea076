// Package layers holds no code: its test checks the rules of the floors
// drawn in the repository's README.md against the source tree.
//
//   - A package imports only packages of the module on floors below its own
//     (every package of the module must be on a floor).
//   - Nothing below the hosts (core/cmd/..., capi, tests/...) reads the
//     environment: os.Getenv, LookupEnv, Environ, ExpandEnv, the user
//     directories that read HOME or XDG_* (os.UserCacheDir, ...), or
//     syscall's Getenv and Environ. Configuration is parsed once by a host
//     and passed down.
//   - capi reaches the core only through core/service: it marshals C values,
//     maps errors to codes and recovers panics, and nothing more.
//
// The test parses the Go files (go/parser) of the whole module, so a rule
// broken anywhere fails `go test ./core/...` with the file and the import
// or call that breaks it.
package layers
