#ifndef KITE_TOOLS_ARGS_H
#define KITE_TOOLS_ARGS_H

// The command-line conventions of every kite tool, and small helpers for their
// key=value arguments.
//
// Conventions (tests/cli checks them for every tool):
//   --help, -h    usage on stdout, one line per option with a description, exit 0
//   --version     "<tool> (kite) <version>" on stdout, exit 0
//   usage errors  (unknown option, missing argument, bad value): one line
//                 "<tool>: error: <what> (see '<tool> --help')" on stderr, exit 2
//   failures      at run time (a file, the model, the conversion): one line
//                 "<tool>: error: <what>" on stderr, exit 1
//   file names    quoted with the OS reason: file_error("cannot open", path)
//                 -> "cannot open 'x.param': No such file or directory"
//   progress      anything that can take more than a few seconds says so on stderr
//
// Adopting it in a tool:
//   static const ToolInfo kInfo = {"kitefoo", "in.param out.param [key=value]...",
//       "What the tool does, one line.", {{"in.param", "the model to read"},
//       {"threads=N", "threads (default 1)"}}, "optional closing note"};
//   int main(int argc, char** argv) {
//       int rc = handle_standard_options(kInfo, argc, argv); // --help/-h/--version
//       if (rc >= 0) return rc;
//       if (bad) return usage_error(kInfo, "unknown option '" + a + "'");
//       if (!fp) return failure(kInfo, file_error("cannot open", path));
//   }

#include <cerrno>
#include <string>
#include <vector>

namespace kite {
namespace tools {

enum ToolExit
{
    EXIT_OK = 0,
    EXIT_RUNTIME = 1, // the tool ran and failed (a file, the model, the conversion)
    EXIT_USAGE = 2    // the command line is wrong
};

struct ToolOption
{
    const char* spelling; // "threads=N", "model.param", "--ops"
    const char* help;     // one line
};

struct ToolInfo
{
    const char* name;                // "kiterun"
    const char* synopsis;            // after "usage: <name> "; '\n' starts another usage line
    const char* summary;             // one sentence: what the tool does
    std::vector<ToolOption> options; // arguments and options, in the order shown
    const char* notes;               // printed after the options, may be nullptr
};

// the kite version this tool was built from (the CMake project version)
const char* kite_version();

// Prints the help (stdout) or the version and returns 0 when argv holds
// --help, -h or --version (anywhere); returns -1 otherwise.
int handle_standard_options(const ToolInfo& info, int argc, char** argv);
void print_help(const ToolInfo& info);

// "<tool>: error: <what> (see '<tool> --help')" on stderr; returns EXIT_USAGE
int usage_error(const ToolInfo& info, const std::string& what);
// "<tool>: error: <what>" on stderr (newlines in `what` kept); returns EXIT_RUNTIME
int failure(const ToolInfo& info, const std::string& what);
// "<tool>: <what>" on stderr, flushed: progress and notes
void progress(const ToolInfo& info, const std::string& what);

// "cannot open 'path': No such file or directory" (the OS reason of `err`)
std::string file_error(const char* action, const std::string& path, int err = errno);
// 'path' as every message quotes a file name
std::string quoted(const std::string& path);

// "[w,h,c]" (or "w,h,c", 1..4 positive ints) -> {w,h,c}. Returns false if malformed.
bool parse_shape(const std::string& s, std::vector<int>& shape);
std::string shape_to_string(const std::vector<int>& shape);

// Parse a non-negative / any int; false if not entirely a number.
bool parse_int_arg(const std::string& s, long long& v);

// "BLOB:VALUE" where blob names may themselves contain ':' (onnx::Add_1):
// the longest known name followed by ':' wins; otherwise the split is at the
// last ':' before `value_start` (e.g. "[" for shapes) or the first ':'.
// Returns false when there is no ':' at all (value only, blob empty).
bool split_blob_value(const std::string& s, const std::vector<std::string>& known_names, std::string& blob,
                      std::string& value, const char* value_start = nullptr);

} // namespace tools
} // namespace kite

#endif // KITE_TOOLS_ARGS_H
