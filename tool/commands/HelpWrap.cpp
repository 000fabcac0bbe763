#include "commands/HelpWrap.h"

#include <llvm/ADT/SmallString.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

#include <sys/ioctl.h>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>

namespace relayout {

namespace {

// Where a line's wrapped continuation starts: under an option's description, else under the
// line's own indentation.
size_t continuationColumn(llvm::StringRef line) {
  const size_t indent = line.find_first_not_of(' ');
  if (indent == llvm::StringRef::npos) return 0;
  if (line.substr(indent).starts_with("-")) {
    const size_t dash = line.find(" - ", indent);
    if (dash != llvm::StringRef::npos) return dash + 3;
  }
  return indent;
}

void wrapLine(llvm::StringRef line, unsigned width, std::string& out) {
  if (line.size() <= width) {
    out += line.str() + "\n";
    return;
  }
  size_t column = continuationColumn(line);
  if (column + 20 > width) column = 0;  // too little room beside it: the whole line is filled
  const std::string pad(column, ' ');
  // The part up to the continuation column stays as it is; the rest is filled word by word.
  std::string current = line.substr(0, column).str();
  bool empty = true;  // no word on the current line past its start yet
  llvm::SmallVector<llvm::StringRef> words;
  line.substr(column).split(words, ' ', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef word : words) {
    if (!empty && current.size() + 1 + word.size() > width) {
      out += current + "\n";
      current = pad;
      empty = true;
    }
    current += (empty ? "" : " ") + word.str();
    empty = false;
  }
  out += current + "\n";
}

unsigned terminalWidth() {
  if (const char* columns = std::getenv("COLUMNS")) {
    unsigned value = 0;
    if (!llvm::StringRef(columns).getAsInteger(10, value) && value >= 40) return value;
  }
  winsize size{};
  if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col >= 40) return size.ws_col;
  return 0;  // a pipe or a file without $COLUMNS: as LLVM prints it, one line per option
}

int savedStdout = -1;
unsigned helpWidth = 0;
llvm::SmallString<128> capturePath;

// At exit (LLVM's help printer exits): what went to the file comes out wrapped.
void writeWrapped() {
  llvm::outs().flush();
  std::fflush(stdout);
  if (savedStdout < 0) return;
  dup2(savedStdout, STDOUT_FILENO);
  close(savedStdout);
  savedStdout = -1;
  auto text = llvm::MemoryBuffer::getFile(capturePath, /*IsText=*/true);
  llvm::sys::fs::remove(capturePath);
  if (!text) return;
  const std::string wrapped = wrapHelpText((*text)->getBuffer(), helpWidth);
  for (size_t done = 0; done < wrapped.size();) {
    ssize_t n = write(STDOUT_FILENO, wrapped.data() + done, wrapped.size() - done);
    if (n <= 0) break;
    done += size_t(n);
  }
}

}  // namespace

std::string wrapHelpText(llvm::StringRef text, unsigned width) {
  std::string out;
  llvm::SmallVector<llvm::StringRef> lines;
  text.split(lines, '\n');
  // split gives an empty last piece for text ending in a newline: not a line of its own.
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  for (llvm::StringRef line : lines) wrapLine(line.rtrim(' '), width, out);
  return out;
}

void wrapHelpOutputIfAsked(int end, char** argv) {
  bool asked = false;
  for (int i = 1; i < end; ++i) {
    llvm::StringRef arg = llvm::StringRef(argv[i]).ltrim('-');
    asked |= arg == "help" || arg == "help-hidden" || arg == "help-list" || arg == "help-list-hidden";
  }
  if (!asked || savedStdout >= 0) return;
  helpWidth = terminalWidth();
  if (!helpWidth) return;
  int fd = -1;
  if (llvm::sys::fs::createTemporaryFile("relayout-help", "txt", fd, capturePath)) return;  // unwrapped, then
  std::fflush(stdout);
  llvm::outs().flush();
  savedStdout = dup(STDOUT_FILENO);
  if (savedStdout < 0 || dup2(fd, STDOUT_FILENO) < 0) {
    close(fd);
    return;
  }
  close(fd);
  std::atexit(writeWrapped);
}

}  // namespace relayout
