#include "outputs/OutputTransaction.h"

#include "Diagnostics.h"
#include "outputs/Outputs.h"

#include "relayout/core/Files.h"

#include <fmt/format.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/SHA256.h>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <set>

namespace relayout {
namespace {

namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

struct Entry {
  std::string path;
  std::string staged;  // PATH.tmp-XXXXXX
  std::string backup;  // PATH.old-XXXXXX, a hard link to what PATH was; empty: PATH is new
  // SHA-256 of what this run writes to PATH, and of what PATH held before (empty: it is new). A
  // journal found later acts only on files that still hold one of them: the user's edits since
  // are never overwritten or removed.
  std::string written, previous;
  bool renamed = false;
};

struct Journal {
  std::string file;
  long pid = 0;
  bool committed = false;
  bool written = true;               // false until this run's journal is on disk (the file may be another run's)
  std::vector<std::string> folders;  // created by the run, outermost first
  std::vector<Entry> entries;
};

llvm::Error systemError(const std::string& what, const std::string& file, int error) {
  return llvm::createStringError(std::error_code(error, std::generic_category()),
                                 what + " " + file + ": " + std::strerror(error));
}

// Writes `bytes` to a new file and fsyncs it; on failure nothing is left and errno is returned.
int writeNewFile(const std::string& file, std::string_view bytes, mode_t mode) {
  int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return errno;
  int error = ::fchmod(fd, mode) == 0 ? 0 : errno;
  for (size_t done = 0; !error && done < bytes.size();) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) error = errno;
    else done += size_t(n);
  }
  if (!error && ::fsync(fd) != 0) error = errno;
  if (::close(fd) != 0 && !error) error = errno;
  if (error) ::unlink(file.c_str());
  return error;
}

void syncFolder(const std::string& folder) {
  int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

std::string uniqueBeside(const std::string& file, const char* suffix) {
  llvm::SmallString<256> unique;
  fs::createUniquePath(file + suffix + "-%%%%%%", unique, /*MakeAbsolute=*/false);
  return unique.str().str();
}

std::string sha256(llvm::StringRef bytes) {
  return llvm::toHex(llvm::SHA256::hash(llvm::arrayRefFromStringRef(bytes)), /*LowerCase=*/true);
}

// The hash of what `file` holds now; empty when it cannot be read.
std::string hashOfFile(const std::string& file) {
  auto text = readFile(file);
  if (!text) {
    llvm::consumeError(text.takeError());
    return "";
  }
  return sha256(*text);
}

nlohmann::json toJson(const Journal& journal) {
  nlohmann::json files = nlohmann::json::array();
  for (const Entry& e : journal.entries)
    files.push_back({{"path", e.path},
                     {"staged", e.staged},
                     {"backup", e.backup},
                     {"written", e.written},
                     {"previous", e.previous}});
  return {{"format", "relayout-journal"}, {"version", 2},  {"pid", journal.pid}, {"committed", journal.committed},
          {"folders", journal.folders},   {"files", files}};
}

// The journal appears whole (written beside, then linked or renamed into place); `first`: it must
// not exist yet (another run writing to the same folder).
llvm::Error writeJournal(const Journal& journal, bool first) {
  std::string temp = uniqueBeside(journal.file, ".tmp");
  if (int error = writeNewFile(temp, toJson(journal).dump(1) + "\n", 0644))
    return systemError("cannot write", journal.file, error);
  int error = first ? (::link(temp.c_str(), journal.file.c_str()) == 0 ? 0 : errno)
                    : (::rename(temp.c_str(), journal.file.c_str()) == 0 ? 0 : errno);
  ::unlink(temp.c_str());
  if (error == EEXIST) return llvm::createStringError(journal.file + ": another relayout run is writing here");
  if (error) return systemError("cannot write", journal.file, error);
  syncFolder(path::parent_path(journal.file).str());
  return llvm::Error::success();
}

// Undoes a run: replaced files get their backups back, new files, staged files, created folders
// and the journal go. `knownRenames`: the entries' `renamed` flags are right (this process);
// otherwise (a journal) a new file that exists is taken to be the run's.
void rollBack(const Journal& journal, bool knownRenames) {
  for (auto e = journal.entries.rbegin(); e != journal.entries.rend(); ++e) {
    if (!e->backup.empty()) {
      if (fs::exists(e->backup) && (e->renamed || !knownRenames)) ::rename(e->backup.c_str(), e->path.c_str());
      ::unlink(e->backup.c_str());  // rename does nothing when both names are links to the same file
    } else if (e->renamed || !knownRenames) {
      ::unlink(e->path.c_str());
    }
    ::unlink(e->staged.c_str());
  }
  if (journal.written) ::unlink(journal.file.c_str());
  for (auto folder = journal.folders.rbegin(); folder != journal.folders.rend(); ++folder) ::rmdir(folder->c_str());
}

// Every rename happened: only the backups, strays and the journal are left to remove.
void complete(const Journal& journal) {
  for (const Entry& e : journal.entries) {
    if (!e.backup.empty()) ::unlink(e.backup.c_str());
    ::unlink(e.staged.c_str());
  }
  ::unlink(journal.file.c_str());
}

// SIGINT, SIGTERM and SIGHUP wait while the transaction runs; it asks whether one came.
class HeldSignals {
 public:
  HeldSignals() {
    sigemptyset(&held_);
    for (int sig : kSignals) sigaddset(&held_, sig);
    sigprocmask(SIG_BLOCK, &held_, &before_);
  }
  ~HeldSignals() { sigprocmask(SIG_SETMASK, &before_, nullptr); }
  int pending() const {
    sigset_t pending;
    sigpending(&pending);
    for (int sig : kSignals)
      if (sigismember(&pending, sig)) return sig;
    return 0;
  }
  // Ends the process by `sig`, as it would have without the transaction.
  [[noreturn]] void dieBy(int sig) {
    std::signal(sig, SIG_DFL);
    sigprocmask(SIG_SETMASK, &before_, nullptr);
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, sig);
    sigprocmask(SIG_UNBLOCK, &only, nullptr);
    std::raise(sig);
    std::_Exit(128 + sig);
  }

 private:
  static constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
  sigset_t held_, before_;
};

// RELAYOUT_TEST_SIGNAL_AFTER_RENAMES=N[:kill] (tests only; see the header).
struct TestSignal {
  long afterRenames = -1;
  int sig = SIGTERM;
  TestSignal() {
    const char* value = std::getenv("RELAYOUT_TEST_SIGNAL_AFTER_RENAMES");
    if (!value) return;
    char* end = nullptr;
    afterRenames = std::strtol(value, &end, 10);
    if (std::strcmp(end, ":kill") == 0) sig = SIGKILL;
  }
};

std::string absolute(llvm::StringRef file) {
  llvm::SmallString<256> out(file);
  fs::make_absolute(out);
  path::remove_dots(out, /*remove_dot_dot=*/true);
  return out.str().str();
}

bool processIsRunning(long pid) { return pid > 0 && (::kill(pid_t(pid), 0) == 0 || errno == EPERM); }

constexpr const char* kNotOurs =
    "; relayout did not write this journal, and does nothing by it: check the files it names, then remove it";

llvm::Expected<Journal> loadJournal(const std::string& file) {
  auto text = readFile(file);
  if (!text) return text.takeError();
  Journal journal;
  journal.file = file;
  try {
    auto doc = nlohmann::json::parse(*text);
    if (doc.value("format", "") != "relayout-journal" || doc.value("version", 0) != 2)
      throw std::runtime_error("format");
    journal.pid = doc.at("pid").get<long>();
    journal.committed = doc.at("committed").get<bool>();
    journal.folders = doc.at("folders").get<std::vector<std::string>>();
    for (const auto& f : doc.at("files"))
      journal.entries.push_back({f.at("path"), f.at("staged"), f.at("backup"), f.at("written"), f.at("previous")});
  } catch (const std::exception&) {
    return fileError(file,
                     "is not a relayout journal that this build reads; remove it if no relayout run is "
                     "writing in this folder");
  }
  // Only what relayout itself stages is ever acted on: files inside the journal's folder, staged
  // and kept under the names it gives them, with the hashes it records.
  const std::string folder = path::parent_path(file).str();
  auto inside = [&](const std::string& p) { return p == folder || pathInside(folder, p).has_value(); };
  auto stagedName = [](const std::string& name, const std::string& of, llvm::StringRef suffix) {
    llvm::StringRef rest(name);
    return rest.consume_front(of) && rest.consume_front(suffix) && rest.size() == 6;
  };
  auto isHash = [](const std::string& h) { return h.size() == 64 && llvm::all_of(h, llvm::isHexDigit); };
  for (const std::string& f : journal.folders)
    if (f != absolute(f) || !inside(f))
      return fileError(file, "names a folder outside its own folder: " + f + kNotOurs);
  for (const Entry& e : journal.entries) {
    if (e.path != absolute(e.path) || !pathInside(folder, e.path))
      return fileError(file, "names a file outside its own folder: " + e.path + kNotOurs);
    if (!stagedName(e.staged, e.path, ".tmp-") || (!e.backup.empty() && !stagedName(e.backup, e.path, ".old-")) ||
        !isHash(e.written) || (e.backup.empty() != e.previous.empty()) || (!e.previous.empty() && !isHash(e.previous)))
      return fileError(file, "lists " + e.path + " in a form relayout does not write" + kNotOurs);
  }
  return journal;
}

// A journal's own temporary copy (.relayout-journal.tmp-XXXXXX) left by a run killed while it
// wrote it: removed when that run is over. One that cannot be read yet may be another run's,
// being written: left unless it is old.
void removeStrayJournals(const std::string& folder) {
  std::error_code ec;
  const std::string prefix = std::string(kJournalName) + ".tmp-";
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = path::filename(it->path()).str();
    if (!llvm::StringRef(name).starts_with(prefix)) continue;
    long pid = 0;
    if (auto text = readFile(it->path())) {
      try {
        pid = nlohmann::json::parse(*text).at("pid").get<long>();
      } catch (const std::exception&) {
      }
    } else {
      llvm::consumeError(text.takeError());
    }
    fs::file_status status;
    bool old = !fs::status(it->path(), status) &&
               std::chrono::system_clock::now() - status.getLastModificationTime() > std::chrono::minutes(1);
    if (pid ? !processIsRunning(pid) : old) ::unlink(it->path().c_str());
  }
}

// Finishes the interrupted run whose journal is `file`: completes it, or rolls it back where every
// file it lists still holds what the run wrote or what was there before.
llvm::Error recoverInterruptedRun(const std::string& file) {
  auto journal = loadJournal(file);
  if (!journal) return journal.takeError();
  if (journal->pid != ::getpid() && processIsRunning(journal->pid))
    return fileError(
        file, fmt::format("another relayout run (pid {}) is writing here; remove this file if none is", journal->pid));
  if (journal->committed) {
    complete(*journal);
    reportNote(fmt::format("{}: completed an interrupted relayout run (pid {}): its {} outputs were all in place", file,
                           journal->pid, journal->entries.size()));
    return llvm::Error::success();
  }
  // Each file is read once. One that holds neither what the run wrote nor what was there before was
  // changed since: it is the user's now, and nothing is undone until they have looked.
  size_t restored = 0;
  for (Entry& e : journal->entries) {
    const bool exists = fs::exists(e.path);
    const std::string now = exists ? hashOfFile(e.path) : "";
    if (exists && now != e.written && (e.previous.empty() || now != e.previous)) {
      std::string before = e.backup.empty()       ? "it did not exist before that run"
                           : fs::exists(e.backup) ? "its version from before that run is " + e.backup
                                                  : "its version from before that run is lost";
      return fileError(e.path, fmt::format("changed since an interrupted relayout run (pid {}) wrote it; {}. Nothing "
                                           "was undone: keep the version you want, then remove {} and run again",
                                           journal->pid, before, file));
    }
    e.renamed = exists && now == e.written;
    if (!e.backup.empty() && fs::exists(e.backup)) {
      // A backup that does not hold what the file held is not put back (the file is removed all the same).
      if (hashOfFile(e.backup) != e.previous) e.backup.clear();
      else restored += e.renamed;
    }
  }
  rollBack(*journal, /*knownRenames=*/true);
  reportNote(
      fmt::format("{}: rolled back an interrupted relayout run (pid {}): restored {} file{} it had "
                  "replaced, removed the files it had added",
                  file, journal->pid, restored, restored == 1 ? "" : "s"));
  return llvm::Error::success();
}

}  // namespace

llvm::Error recoverInterruptedRuns(const std::vector<std::string>& folders) {
  std::set<std::string> seen;
  for (const std::string& folder : folders) {
    const std::string file = absolute(folder + "/" + kJournalName);
    if (!seen.insert(file).second) continue;
    if (fs::exists(file))
      if (llvm::Error err = recoverInterruptedRun(file)) return err;
    removeStrayJournals(path::parent_path(file).str());
  }
  return llvm::Error::success();
}

llvm::Expected<CommittedOutputs> commitOutputs(const std::vector<StagedOutput>& outputs, std::string journalFolder) {
  CommittedOutputs result;
  if (outputs.empty()) return result;
  if (journalFolder.empty()) journalFolder = path::parent_path(outputs.front().path).str();
  journalFolder = absolute(journalFolder);
  // The journal goes where it holds every output (a later run acts only on files inside its
  // folder): the deepest folder above them all, unless that is the root or not writable (then a
  // run killed outright leaves a journal the next run refuses, naming it).
  std::vector<std::string> under = {journalFolder + "/" + kJournalName};
  for (const StagedOutput& out : outputs) under.push_back(absolute(out.path));
  auto writable = [](llvm::StringRef folder) {  // the folder, or the first that exists above it
    while (!folder.empty() && !fs::exists(folder)) folder = path::parent_path(folder);
    return !folder.empty() && ::access(folder.str().c_str(), W_OK) == 0;
  };
  if (std::string common = commonFolder(under); common != "/" && writable(common)) journalFolder = common;
  std::vector<std::string> folders = {journalFolder};
  for (const StagedOutput& out : outputs) folders.push_back(path::parent_path(out.path).str());
  if (llvm::Error err = recoverInterruptedRuns(folders)) return err;

  HeldSignals held;
  Journal journal;
  journal.file = journalFolder + "/" + kJournalName;
  journal.pid = ::getpid();
  journal.written = false;
  auto fail = [&](llvm::Error err) -> llvm::Error {
    rollBack(journal, /*knownRenames=*/true);
    return err;
  };
  auto interrupted = [&](int sig) {
    rollBack(journal, /*knownRenames=*/true);
    reportError(fmt::format("interrupted by signal {} while writing the outputs; none of them was kept", sig));
    held.dieBy(sig);
  };

  for (const std::string& folder : folders) {
    std::vector<std::string> missing;  // innermost first
    for (llvm::StringRef f = folder; !f.empty() && !fs::exists(f); f = path::parent_path(f)) missing.push_back(f.str());
    for (auto f = missing.rbegin(); f != missing.rend(); ++f) {
      if (::mkdir(f->c_str(), 0777) != 0 && errno != EEXIST)
        return fail(systemError("cannot create folder", *f, errno));
      journal.folders.push_back(*f);
    }
  }
  for (const StagedOutput& out : outputs) {
    Entry e{absolute(out.path), "", "", sha256(out.contents), ""};
    e.staged = uniqueBeside(e.path, ".tmp");
    if (fs::is_directory(out.path)) return fail(fileError(out.path, "cannot write: a folder has this name"));
    if (fs::exists(out.path)) {
      e.backup = uniqueBeside(e.path, ".old");
      e.previous = hashOfFile(out.path);
      if (e.previous.empty()) return fail(fileError(out.path, "cannot read it to keep its previous version"));
    }
    journal.entries.push_back(std::move(e));
  }
  if (llvm::Error err = writeJournal(journal, /*first=*/true)) return fail(std::move(err));
  journal.written = true;

  for (size_t i = 0; i < outputs.size(); ++i) {
    if (int sig = held.pending()) interrupted(sig);
    Entry& e = journal.entries[i];
    struct stat existing;
    const std::string& modeFrom = outputs[i].modeOf.empty() ? e.path : outputs[i].modeOf;
    mode_t mode = ::stat(modeFrom.c_str(), &existing) == 0 ? existing.st_mode & 07777 : 0666 & ~[] {
      mode_t mask = ::umask(0);
      ::umask(mask);
      return mask;
    }();
    if (int error = writeNewFile(e.staged, outputs[i].contents, mode))
      return fail(systemError("cannot write", e.path, error));
  }
  for (Entry& e : journal.entries)
    if (!e.backup.empty() && ::link(e.path.c_str(), e.backup.c_str()) != 0)
      return fail(systemError("cannot keep the previous version of", e.path, errno));

  static const TestSignal testSignal;
  for (size_t i = 0; i < journal.entries.size(); ++i) {
    if (long(i) == testSignal.afterRenames) std::raise(testSignal.sig);
    if (int sig = held.pending()) interrupted(sig);
    Entry& e = journal.entries[i];
    if (::rename(e.staged.c_str(), e.path.c_str()) != 0) return fail(systemError("cannot write", e.path, errno));
    e.renamed = true;
  }
  std::set<std::string> written;
  for (const Entry& e : journal.entries) written.insert(path::parent_path(e.path).str());
  for (const std::string& folder : written) syncFolder(folder);

  journal.committed = true;
  if (llvm::Error err = writeJournal(journal, /*first=*/false)) return fail(std::move(err));
  complete(journal);
  syncFolder(journalFolder);
  for (const Entry& e : journal.entries)
    if (e.backup.empty()) result.newFiles.push_back(e.path);
  result.newFolders = journal.folders;
  return result;
}

}  // namespace relayout
