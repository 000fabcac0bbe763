#include "relayout/core/Files.h"

#include <fmt/format.h>
#include <fstream>

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/SHA256.h>
#include <llvm/Support/raw_ostream.h>

#include <unistd.h>
#include <cerrno>
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace relayout {

std::string resolvedPath(llvm::StringRef path) {
  llvm::SmallString<256> out;
  if (!llvm::sys::fs::real_path(path, out)) return out.str().str();
  out = path;
  llvm::sys::fs::make_absolute(out);
  llvm::sys::path::remove_dots(out, /*remove_dot_dot=*/true);
  return out.str().str();
}

std::string sha256Hex(llvm::StringRef bytes) {
  auto digest = llvm::SHA256::hash(llvm::arrayRefFromStringRef(bytes));
  return llvm::toHex(digest, /*LowerCase=*/true);
}

llvm::Error fileError(llvm::StringRef path, const llvm::Twine& message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), (path + ": " + message).str());
}

llvm::Expected<std::string> readFile(llvm::StringRef path) {
  // A device or pipe (/dev/zero, /dev/urandom) has no size to check first: it is read in pieces,
  // and refused past the cap, rather than read until memory runs out.
  llvm::sys::fs::file_status status;
  if (!llvm::sys::fs::status(path, status) && status.type() != llvm::sys::fs::file_type::regular_file &&
      status.type() != llvm::sys::fs::file_type::directory_file) {
    std::ifstream in(path.str(), std::ios::binary);
    if (!in) return fileError(path, "cannot read it");
    std::string text;
    char chunk[1 << 16];
    while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
      text.append(chunk, size_t(in.gcount()));
      if (text.size() > kMaxInputBytes)
        return fileError(path, fmt::format("holds more than {} MiB, more than relayout reads from one of its files "
                                           "(not a file relayout wrote?)",
                                           kMaxInputBytes >> 20));
    }
    return text;
  }
  if (status.type() == llvm::sys::fs::file_type::regular_file && status.getSize() > kMaxInputBytes)
    return fileError(path, fmt::format("is {} MiB, more than the {} MiB relayout reads from one of its files (not a "
                                       "file relayout wrote?)",
                                       status.getSize() >> 20, kMaxInputBytes >> 20));
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer) return fileError(path, "cannot read: " + buffer.getError().message());
  return (*buffer)->getBuffer().str();
}

llvm::Expected<nlohmann::json> readJsonFile(llvm::StringRef path) {
  auto text = readFile(path);
  if (!text) return text.takeError();
  return parseJson(*text, path);
}

namespace {

// Finds a member name repeated within one object while the parser runs: nlohmann keeps the last
// value silently, so a repeat would decide on a value no schema check saw. Names the first repeat
// by its JSON pointer.
class RepeatedMemberFinder {
 public:
  bool operator()(int /*depth*/, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    switch (event) {
      case Event::object_start:
      case Event::array_start:
        countElement();
        stack_.push_back({event == Event::object_start, {}, {}, 0});
        break;
      case Event::object_end:
      case Event::array_end:
        if (!stack_.empty()) stack_.pop_back();
        break;
      case Event::key: {
        Frame& top = stack_.back();
        top.key = parsed.get<std::string>();
        if (!top.keys.insert(top.key).second && repeated_.empty()) repeated_ = pointer();
        break;
      }
      case Event::value:
        countElement();
        break;
    }
    return true;
  }
  // The pointer of the first repeated member, or "" when none was.
  const std::string& repeated() const { return repeated_; }

 private:
  struct Frame {
    bool object;
    std::set<std::string> keys;
    std::string key;  // object: the member being read
    size_t elements;  // array: elements begun so far
  };
  void countElement() {
    if (!stack_.empty() && !stack_.back().object) ++stack_.back().elements;
  }
  std::string pointer() const {
    std::string out;
    for (const Frame& f : stack_) {
      out += "/";
      if (!f.object) {
        out += std::to_string(f.elements - 1);
        continue;
      }
      for (char c : f.key) out += c == '~' ? std::string("~0") : c == '/' ? std::string("~1") : std::string(1, c);
    }
    return out;
  }
  std::vector<Frame> stack_;
  std::string repeated_;
};

}  // namespace

llvm::Expected<nlohmann::json> parseJson(llvm::StringRef text, llvm::StringRef path) {
  try {
    RepeatedMemberFinder finder;
    nlohmann::json doc = nlohmann::json::parse(text.begin(), text.end(), std::ref(finder));
    if (!finder.repeated().empty())
      return fileError(path, finder.repeated() + ": expected each member once in its object, got it twice");
    return doc;
  } catch (const nlohmann::json::parse_error& e) {
    // e.what(): "[json.exception.parse_error.101] parse error at line 9, column 48: syntax error
    // while parsing value - invalid string: ...; last read: '...'"
    auto [where, what] = llvm::StringRef(e.what()).split("] ").second.split(": ");
    what = what.split("; last read").first;
    return fileError(path, "malformed JSON at byte " + llvm::Twine(e.byte) + " (" +
                               where.drop_front(std::min<size_t>(where.size(), 15)) + "): " + what);
  } catch (const nlohmann::json::exception& e) {
    // A number too large for a double ("1e400") is refused with out_of_range.406, which has no
    // byte offset: "[json.exception.out_of_range.406] number overflow parsing '1e400'".
    return fileError(path, "malformed JSON: " + llvm::StringRef(e.what()).split("] ").second);
  }
}

llvm::Expected<TempFileBeside> createTempFileBeside(llvm::StringRef path) {
  llvm::StringRef parent = llvm::sys::path::parent_path(path);
  if (!parent.empty())
    if (std::error_code ec = llvm::sys::fs::create_directories(parent))
      return fileError(parent, "cannot create folder: " + ec.message());
  llvm::SmallString<256> model(path);
  model += ".tmp-%%%%%%";
  TempFileBeside file;
  llvm::SmallString<256> temp;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(model, file.fd, temp))
    return fileError(path, "cannot write: " + ec.message());
  file.path = temp.str().str();
  return file;
}

llvm::Error writeFileAtomically(llvm::StringRef path, llvm::StringRef contents) {
  auto file = createTempFileBeside(path);
  if (!file) return file.takeError();
  const std::string& temp = file->path;
  auto failed = [&](std::error_code ec) {
    llvm::sys::fs::remove(temp);
    return llvm::createStringError(ec, "cannot write " + path + ": " + ec.message());
  };
  {
    llvm::raw_fd_ostream out(file->fd, /*shouldClose=*/true);
    out << contents;
    out.flush();
    std::error_code synced;
    if (!out.has_error() && ::fsync(file->fd) != 0) synced = std::error_code(errno, std::generic_category());
    out.close();
    if (out.has_error()) {
      std::error_code ec = out.error();
      out.clear_error();  // else the stream's destructor ends the process with "LLVM ERROR: IO failure"
      return failed(ec);
    }
    if (synced) return failed(synced);
  }
  if (std::error_code ec = llvm::sys::fs::rename(temp, path)) return failed(ec);
  return llvm::Error::success();
}

llvm::Error checkFormat(const nlohmann::json& doc, llvm::StringRef path, llvm::StringRef format, int version) {
  if (!doc.is_object() || !doc.contains("format") || !doc["format"].is_string())
    return fileError(path, "not a relayout " + format + " (no \"format\" field)");
  std::string actual = doc["format"].get<std::string>();
  if (actual != format) return fileError(path, "expected a " + format + ", found a " + actual);
  if (!doc.contains("version") || !doc["version"].is_number_integer() || doc["version"].get<int>() != version)
    return fileError(path, format + " version " + (doc.contains("version") ? doc["version"].dump() : "missing") +
                               " is not supported (this build reads version " + llvm::Twine(version) + ")");
  return llvm::Error::success();
}

llvm::Error copyTree(llvm::StringRef from, llvm::StringRef to, llvm::StringRef skip) {
  namespace fs = llvm::sys::fs;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(from, ec), end; it != end && !ec; it.increment(ec)) {
    llvm::StringRef path = it->path();
    llvm::StringRef relative = path.drop_front(from.size()).ltrim('/');
    if (relative == skip) continue;
    llvm::SmallString<256> target(to);
    llvm::sys::path::append(target, relative);
    if (it->type() == fs::file_type::directory_file) {
      if (std::error_code made = fs::create_directories(target))
        return llvm::createStringError(made, "cannot create " + target.str() + ": " + made.message());
      continue;
    }
    if (std::error_code made = fs::create_directories(llvm::sys::path::parent_path(target)))
      return llvm::createStringError(made, "cannot create the folder of " + target.str() + ": " + made.message());
    if (std::error_code copied = fs::copy_file(path, target))
      return llvm::createStringError(copied,
                                     "cannot copy " + path.str() + " to " + target.str() + ": " + copied.message());
  }
  if (ec) return llvm::createStringError(ec, "cannot read " + from.str() + ": " + ec.message());
  return llvm::Error::success();
}

}  // namespace relayout
