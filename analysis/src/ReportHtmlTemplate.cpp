// The page of report.html as one Mustache template (kainjow): ReportHtml.cpp builds the data only.
// {{values}} are HTML-escaped by Mustache; {{{charts}}} come as SVG from Svg.cpp, escaped there.
// Self-contained: inline CSS and SVG, no scripts, nothing fetched, so it works offline.
#include "ReportHtmlTemplate.h"

namespace relayout {

namespace {

constexpr const char* kPage = R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>relayout analysis</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:80em;color:#222;padding:0 1em}
h1{font-size:1.5em}h2{font-size:1.2em;border-top:1px solid #ccc;padding-top:1em;margin-top:2em}h3{font-size:1em;margin-top:1.4em}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ddd;padding:.2em .5em;text-align:left;vertical-align:top}
td.num{text-align:right;font-variant-numeric:tabular-nums}th{background:#f3f3f3}
.note{background:#fff8e0;border-left:4px solid #e0b000;padding:.4em .8em}
.picks{background:#eef4ff;border-left:4px solid #4a7bd0;padding:.4em .8em}
.layout{font-weight:bold}code{background:#f4f4f4;padding:0 .2em}ul.tree{list-style:none;padding-left:1.2em}
.est{color:#8a6d00}.slower{color:#a11;font-weight:bold}.chosen{font-weight:bold}
svg text{font:12px system-ui,sans-serif}svg text.axis{font-style:italic;fill:#444}
tr.srcline td{background:#f7f7f7}code.src{white-space:pre-wrap;overflow-wrap:anywhere;background:none}
.scroll{overflow-x:auto;max-width:100%}table.source{font-size:12px}.unreadable{color:#888;font-style:italic}
.arr{display:flex;align-items:center;margin:.15em 0}.arr .what{flex:0 0 22em}.arr>div{max-width:50em}.bytes{display:flex}.bytes span{border:1px solid #555;margin-right:-1px;padding:.1em .2em;
font-size:12px;overflow:hidden;white-space:nowrap;min-width:1.2em}.bytes .field{background:#dce8fa}
.bytes .pad{background:repeating-linear-gradient(45deg,#eee,#eee 4px,#ccc 4px,#ccc 8px);color:#555}
details{margin:.6em 0}summary{cursor:pointer;font-weight:bold}
</style></head><body>
<h1>relayout analysis</h1>
<p>Rule: {{ruleTitle}} (docs/analysis.md). Profile recorded on {{device}}.</p>
<p class="note">{{{note}}}</p>
{{#summary}}{{> table}}{{/summary}}
{{#structs}}
<section class="struct">
<h2 id="s-{{name}}">struct <code>{{name}}</code>: <span class="layout">{{layout}}</span></h2>
<p>{{reason}}</p>
{{#picks}}<p class="picks">{{.}}</p>{{/picks}}
{{#rewriteApplied}}<p><strong>Rewrite:</strong> applied.</p>{{/rewriteApplied}}
{{#rewriteRefused}}<p><strong>Rewrite: not applied.</strong> The sources keep this struct's layout because:</p>
<ul>{{#reasons}}<li>{{.}}</li>{{/reasons}}</ul>{{/rewriteRefused}}
{{#executed}}
<h3>What decides: {{costTitle}}</h3>
<p class="rule"><b>Rule:</b> {{rule}}</p>
{{{costChart}}}
{{#costTable}}{{> table}}{{/costTable}}
{{#trafficChart}}<h3>Predicted traffic per layout (32-byte sectors; shown, not what decides here)</h3>
{{{trafficChart}}}{{/trafficChart}}
{{#perKernel}}<h3>Change from AoS per kernel</h3>
{{#kernelTable}}{{> table}}
<p><small>Each cell: the kernel's predicted 32-byte sectors of this struct under the layout, and in brackets the change from AoS's. A kernel the chosen layout makes read more than 5% more sectors is flagged <span class="slower">slower</span>, since the struct's total can hide it.</small></p>{{/kernelTable}}
{{^kernelTable}}<p>{{noKernels}}</p>{{/kernelTable}}{{/perKernel}}
<h3>Accesses per field and kernel</h3>
{{{heatMap}}}
<h3>Deciding source lines ({{siteShown}} of {{siteCount}} sites: {{siteOrder}})</h3>
<div class="scroll"><table class="source"><tr><th>source line / column</th><th>field</th><th>access</th><th>executions<br>(threads)</th><th>sectors per<br>request</th><th>ideal</th><th>excess<br>(Nsight)</th><th>paper<br>class</th><th>weight<br>(paper)</th>{{#sectorHeaders}}<th>{{.}}</th>{{/sectorHeaders}}</tr>
{{#lines}}
<tr class="srcline"><td><code>{{location}}</code></td><td colspan="{{span}}">{{#text}}<code class="src">{{text}}</code>{{/text}}{{^text}}<span class="unreadable">{{unreadable}}</span>{{/text}}</td></tr>
{{#sites}}<tr><td>&nbsp;&nbsp;column {{column}}</td><td>{{field}}</td><td>{{access}}</td><td class="num">{{executions}}</td><td class="num">{{perRequest}}</td><td class="num">{{ideal}}</td><td>{{excess}}</td><td>{{cls}}</td><td class="num">{{weight}}</td>{{#sectors}}<td class="num">{{.}}</td>{{/sectors}}</tr>
{{/sites}}
{{/lines}}
</table></div>
<p class="legend"><small>{{legend}}</small></p>
{{#clustering}}
<details class="tree"><summary>Field access tree (kernel, loop with its Count, fields read or written there)</summary>
{{#steps}}<p>{{title}}</p>
<ul class="tree">{{#kernels}}<li>kernel <code>{{name}}</code><ul class="tree">{{#loops}}
<li>{{label}} &mdash; Count {{count}}{{#estimated}} <span class="est">(from site counters)</span>{{/estimated}} &mdash; {{fields}}</li>{{/loops}}
</ul></li>{{/kernels}}</ul>{{/steps}}
<p>Step 3, nodes sharing a field with equal Count merged across kernels:</p>
<ul>{{#across}}<li>Count {{count}}: {{fields}} <small>({{kernel}}: {{label}})</small></li>{{/across}}</ul>
</details>
<h3>Clusters{{clusterNote}}</h3>
{{#clusterTable}}{{> table}}{{/clusterTable}}
{{#apart}}<p>Taken apart, each field an array of its own: {{fields}} (the replay predicts a cost of {{together}} together, {{separate}} apart).</p>{{/apart}}
{{/clustering}}
{{/executed}}
{{#bytes}}
<h3>Bytes of one element (to scale; hatched: padding)</h3>
<div class="arr"><span class="what">before: AoS, {{size}} B</span><div class="bytes" style="width:{{width}}%">{{#before}}<span class="{{kind}}" style="flex:{{size}}" title="{{title}}">{{label}}</span>{{/before}}</div></div>
{{#afterTitle}}<p>{{afterTitle}}:</p>{{/afterTitle}}
{{#after}}<div class="arr"><span class="what"><code>{{name}}</code>, {{bytes}} B{{#padding}} ({{padding}} B padding){{/padding}}</span><div class="bytes" style="width:{{width}}%">{{#spans}}<span class="{{kind}}" style="flex:{{size}}" title="{{title}}">{{label}}</span>{{/spans}}</div></div>
{{/after}}
{{/bytes}}
</section>
{{/structs}}
{{{hw}}}</body></html>
)";

// A table of headers and cells, for the tables whose columns vary with the analysis mode.
constexpr const char* kTable = R"(<table class="{{tableClass}}"><tr>{{#headers}}<th>{{.}}</th>{{/headers}}</tr>
{{#rows}}<tr{{#rowClass}} class="{{rowClass}}"{{/rowClass}}>{{#cells}}<td{{#num}} class="num"{{/num}}>{{#code}}<code>{{/code}}{{#link}}<a href="#s-{{text}}">{{/link}}{{text}}{{#link}}</a>{{/link}}{{#code}}</code>{{/code}}{{#flag}} <span class="slower">{{flag}}</span>{{/flag}}</td>{{/cells}}</tr>
{{/rows}}</table>
)";

}  // namespace

const char* reportHtmlPage() { return kPage; }
const char* reportHtmlTablePartial() { return kTable; }

}  // namespace relayout
