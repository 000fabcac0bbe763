#include "batch/LiveDisplay.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace relayout::batch {

namespace {

// The terminal's width: a block line longer than it would wrap, and erasing would miss a line.
size_t terminalColumns() {
  winsize size{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return 80;
}

}  // namespace

LiveDisplay::LiveDisplay() {
  const char* term = std::getenv("TERM");
  live_ = isatty(STDERR_FILENO) && term && std::strcmp(term, "dumb") != 0;
}

void LiveDisplay::line(const std::string& text) {
  erase();
  std::fprintf(stderr, "%s\n", text.c_str());
  draw();
}

void LiveDisplay::status(std::vector<std::string> lines) {
  if (!live_) return;
  erase();
  block_ = std::move(lines);
  draw();
}

void LiveDisplay::close() {
  erase();
  block_.clear();
}

void LiveDisplay::erase() {
  if (!live_ || drawn_ == 0) return;
  std::fprintf(stderr, "\r\x1b[%zuA\x1b[J", drawn_);  // up to the block's first line, clear to the end
  drawn_ = 0;
}

void LiveDisplay::draw() {
  if (!live_) return;
  const size_t columns = terminalColumns();
  for (const std::string& l : block_) {
    std::fprintf(stderr, "%s\n", l.substr(0, columns > 1 ? columns - 1 : 1).c_str());
    ++drawn_;
  }
  std::fflush(stderr);
}

}  // namespace relayout::batch
