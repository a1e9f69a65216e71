// A file named on the command line (`polyhe report --output`, `--data`), replaced only when the
// run succeeds.
#pragma once

#include <string>
#include <string_view>

namespace polyhe::cli {

/// The file `path` named by `option`, written whole by commit() or not at all. The text goes to a
/// temporary file beside it, created by the constructor (so that an unwritable place is refused
/// before an hour of benchmarking) and renamed over `path` by commit(): an existing file survives
/// a run that fails, and a reader never sees half a file. The replacement keeps the permissions
/// of the file it replaces; a symbolic link is followed, so the file it names is replaced, not
/// the link. Where no temporary file can be made beside it (a device such as /dev/null, a FIFO,
/// a file the user may write in a directory they may not) commit() writes `path` directly.
/// An empty path is no file: commit() does nothing.
class OutputFile {
 public:
  /// Throws UsageError naming the option and the path when it cannot be written.
  OutputFile(std::string path, std::string option);
  ~OutputFile();  // removes the temporary file unless committed
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  /// Writes `text` and puts it in place; throws polyhe::Error naming the option, the path and the
  /// reason on failure (the temporary file is removed, the original left as it was).
  void commit(std::string_view text);

 private:
  std::string path_;    // the file to replace: `path` with symbolic links resolved
  std::string option_;  // "--output" or "--data", for the messages
  std::string temp_;    // the temporary file; empty when none (no path, or written directly)
};

}  // namespace polyhe::cli
