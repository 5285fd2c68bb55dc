// Runs and baselines as tables (listings.h).
#include "orchestrator/history/listings.h"

#include "common/util/shown_text.h"
#include "orchestrator/history/display_format.h"
#include "orchestrator/history/text_table.h"

namespace benchgate::history {

std::string render_run_list(const std::vector<store::RunSummary>& runs) {
  // ORIGIN: who started the run (local, scheduled, client; `-`: stored before schema version
  // 23, not recorded, counted as the operator's); a client's run is a point of the clients'
  // series only (docs/GATES.md, "Series and baselines").
  TextTable table({"ID", "SCENARIO", "STATUS", "STARTED", "DURATION", "COMMIT", "BRANCH", "EXIT",
                   "ORIGIN", "LABELS"});
  table.align(0, TextTable::Align::kRight).align(4, TextTable::Align::kRight);
  table.align(7, TextTable::Align::kRight);
  for (const store::RunSummary& r : runs) {
    table.add_row({std::to_string(r.id), shown_text(r.scenario), shown_text(r.status),
                   format_local_time(r.started_at_ns),
                   run_took(r.status, r.started_at_ns, r.finished_at_ns).value_or("-"),
                   short_commit(r.commit), or_dash(r.branch),
                   r.exit_code ? std::to_string(*r.exit_code) : "-", or_dash(r.origin),
                   format_labels(r.labels)});
  }
  return table.render();
}

std::string render_baseline_list(const std::vector<store::BaselineEntry>& entries) {
  TextTable table({"BASELINE", "RUN", "SCENARIO", "COMMIT", "STARTED", "ADDED"});
  table.align(1, TextTable::Align::kRight);
  for (const store::BaselineEntry& e : entries) {
    table.add_row({shown_text(e.name), std::to_string(e.run_id), shown_text(e.scenario),
                   short_commit(e.commit), format_local_time(e.started_at_ns),
                   format_local_time(e.added_at_ns)});
  }
  return table.render();
}

}  // namespace benchgate::history
