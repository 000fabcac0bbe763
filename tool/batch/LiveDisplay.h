// relayout batch's progress on a terminal: the lines that stay (an application started, ended)
// scroll as always, and below them a block redrawn in place shows each running application's stage
// and elapsed time and the batch's done/total and time left. Where standard error is not a
// terminal (a log file, CI), no block is drawn: the caller prints a line per running application
// now and then instead.
#pragma once

#include <string>
#include <vector>

namespace relayout::batch {

class LiveDisplay {
 public:
  LiveDisplay();  // live when standard error is a terminal and TERM is not "dumb"
  ~LiveDisplay() { close(); }
  LiveDisplay(const LiveDisplay&) = delete;
  LiveDisplay& operator=(const LiveDisplay&) = delete;

  bool live() const { return live_; }
  void line(const std::string& text);           // a line that stays, above the block
  void status(std::vector<std::string> lines);  // the block, drawn again (live only)
  void close();                                 // erases the block

 private:
  void erase();
  void draw();

  bool live_ = false;
  std::vector<std::string> block_;
  size_t drawn_ = 0;  // lines of the block on the screen now
};

}  // namespace relayout::batch
