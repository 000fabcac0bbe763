// One output transaction for every command that writes: all files appear, or none does.
//
// Each file is staged in a temporary file beside its destination (PATH.tmp-XXXXXX) and fsynced;
// a file that already exists is kept as a hard link (PATH.old-XXXXXX) so that it can be put back;
// then every staged file is renamed into place. A journal (.relayout-journal, in the journal
// folder) listing destinations, staged files and backups is written before the first rename and
// removed at the end, so that a run killed outright is rolled back (or completed, when every
// rename had happened) by the next relayout run that writes there. SIGINT, SIGTERM and SIGHUP are
// held back while the transaction runs: one that arrives rolls everything back (new files and
// folders are removed, replaced files restored) before the process ends by it.
//
// Test hook: RELAYOUT_TEST_SIGNAL_AFTER_RENAMES=N makes the transaction send itself SIGTERM after
// N renames; N:kill sends SIGKILL instead (no rollback: the journal is left for the next run).
#pragma once

#include <llvm/Support/Error.h>

#include <string>
#include <vector>

namespace relayout {

struct StagedOutput {
  std::string path;  // destination, absolute
  std::string contents;
  std::string modeOf;  // a new file takes this file's permissions (a source's FILE.orig); empty: the umask's
};

struct CommittedOutputs {
  std::vector<std::string> newFiles;    // destinations that did not exist before
  std::vector<std::string> newFolders;  // folders created for them, outermost first
};

// Writes every output, all or nothing. journalFolder: where the journal goes (empty: the first
// destination's folder); it is created if missing.
llvm::Expected<CommittedOutputs> commitOutputs(const std::vector<StagedOutput>& outputs, std::string journalFolder);

// Finishes what an interrupted relayout run left in these folders (its journal): rolls it back,
// or completes it when all its renames had happened, and says which. A journal of a run that is
// still going is an error.
llvm::Error recoverInterruptedRuns(const std::vector<std::string>& folders);

inline constexpr const char* kJournalName = ".relayout-journal";

}  // namespace relayout
