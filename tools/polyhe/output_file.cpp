#include "output_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "polyhe/core/error.hpp"
#include "usage.hpp"

namespace polyhe::cli {

namespace {

namespace fs = std::filesystem;

/// Writes `text` to `path`, truncating it; false on any failure.
bool write_file(const std::string& path, std::string_view text) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(text.data(), static_cast<std::streamsize>(text.size()));
  file.close();
  return static_cast<bool>(file);
}

}  // namespace

OutputFile::OutputFile(std::string path, std::string option)
    : path_(std::move(path)), option_(std::move(option)) {
  if (path_.empty()) return;
  const std::string shown = option_ + ": cannot write '" + path_ + "'";
  std::error_code ec;
  const fs::file_status st = fs::status(path_, ec);  // follows symbolic links
  const bool exists = fs::exists(st);
  if (exists && fs::is_directory(st)) throw UsageError(shown + ": it is a directory");
  if (exists && !fs::is_regular_file(st)) {  // a device or a FIFO: written directly at the end
    if (::access(path_.c_str(), W_OK) != 0) throw UsageError(shown + ": " + std::strerror(errno));
    return;
  }
  if (exists) {
    const fs::path real = fs::canonical(path_, ec);
    if (!ec) path_ = real.string();
  }
  static std::atomic<unsigned> counter{0};
  std::string temp = path_ + ".polyhe-" + std::to_string(::getpid()) + "-" +
                     std::to_string(counter.fetch_add(1)) + ".tmp";
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) {
    const int error = errno;
    // No file can be made beside it: write it directly at the end, if it can be written at all.
    if (exists && ::access(path_.c_str(), W_OK) == 0) return;
    throw UsageError(shown + ": " + std::strerror(error));
  }
  ::close(fd);
  temp_ = std::move(temp);
  if (exists) fs::permissions(temp_, st.permissions(), ec);  // best effort: as the file it replaces
}

OutputFile::~OutputFile() {
  if (!temp_.empty()) ::unlink(temp_.c_str());
}

void OutputFile::commit(std::string_view text) {
  if (path_.empty()) return;
  if (temp_.empty()) {
    if (!write_file(path_, text)) throw Error(option_ + ": writing '" + path_ + "' failed");
    return;
  }
  if (!write_file(temp_, text)) {
    throw Error(option_ + ": writing '" + temp_ + "' (to become '" + path_ + "') failed; '" +
                path_ + "' is unchanged");
  }
  std::error_code ec;
  fs::rename(temp_, path_, ec);
  if (ec) {
    throw Error(option_ + ": renaming '" + temp_ + "' to '" + path_ + "' failed: " + ec.message() +
                "; '" + path_ + "' is unchanged");
  }
  temp_.clear();
}

}  // namespace polyhe::cli
