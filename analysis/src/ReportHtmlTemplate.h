// Internal to analysis/: the Mustache template of report.html (ReportHtmlTemplate.cpp) and its
// partial "table" (headers[], rows[].cells[]: text, num, code, link, flag).
#pragma once

namespace relayout {

const char* reportHtmlPage();
const char* reportHtmlTablePartial();

}  // namespace relayout
