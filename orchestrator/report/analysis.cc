// Comparison ratios and sweep fits over a scenario's results; see analysis.h.
#include "orchestrator/report/analysis.h"

#include <algorithm>
#include <cstdlib>
#include <map>

#include <fmt/format.h>

#include "orchestrator/gates/statistics.h"
#include "orchestrator/report/rate_text.h"

namespace benchgate::report {
namespace {

const results::WorkloadResult* find(const engine::ScenarioResult& result, const std::string& name,
                                    const std::string& variant) {
  for (const auto& w : result.workloads) {
    if (w.spec.name == name && w.variant == variant) return &w;
  }
  return nullptr;
}

std::vector<double> rates(const results::WorkloadResult& w) {
  std::vector<double> out;
  for (const auto& rep : w.repetitions) out.push_back(rep.ops_per_second());
  return out;
}

std::string number(double v, const char* format = "{:.4g}") {
  return fmt::format(fmt::runtime(format), v);
}

std::string optional(const std::optional<double>& v) { return v ? number(*v) : "-"; }

// A swept value as the workload's name writes it (a whole number).
std::string point_value(double n) { return fmt::format("{:.0f}", n); }

}  // namespace

std::vector<VariantComparison> comparisons(const engine::ScenarioResult& result) {
  std::vector<VariantComparison> out;
  if (result.variants.size() < 2) return out;
  const std::string& baseline = result.variants.front();
  std::vector<std::string> names;
  for (const auto& w : result.workloads) {
    if (std::find(names.begin(), names.end(), w.spec.name) == names.end()) {
      names.push_back(w.spec.name);
    }
  }
  for (const auto& name : names) {
    const auto* a = find(result, name, baseline);
    for (size_t v = 1; v < result.variants.size(); ++v) {
      VariantComparison c;
      c.workload = name;
      c.baseline = baseline;
      c.variant = result.variants[v];
      const auto* b = find(result, name, c.variant);
      if (!a || !b) continue;
      if (a->status == results::WorkloadStatus::kNotConfigured ||
          b->status == results::WorkloadStatus::kNotConfigured) {
        c.status = "not_configured";
      } else if (a->status == results::WorkloadStatus::kInterrupted ||
                 b->status == results::WorkloadStatus::kInterrupted) {
        c.status = "interrupted";
      } else if (a->status != results::WorkloadStatus::kOk ||
                 b->status != results::WorkloadStatus::kOk || a->repetitions.empty() ||
                 b->repetitions.empty()) {
        c.status = "failed";
      } else {
        c.status = "ok";
        const auto ra = rates(*a);
        const auto rb = rates(*b);
        c.baseline_rps = a->ops_per_second().median;
        c.variant_rps = b->ops_per_second().median;
        if (c.baseline_rps > 0) c.ratio = c.variant_rps / c.baseline_rps;
        for (size_t i = 0; i < std::min(ra.size(), rb.size()); ++i) {
          if (ra[i] <= 0) continue;
          const double r = rb[i] / ra[i];
          c.pair_min = c.pair_min ? std::min(*c.pair_min, r) : r;
          c.pair_max = c.pair_max ? std::max(*c.pair_max, r) : r;
        }
        const auto cmp = gates::compare_samples(ra, rb);
        if (cmp.interval_bounded) {
          c.ci_low = 1 + cmp.change_low;
          c.ci_high = 1 + cmp.change_high;
        }
      }
      out.push_back(std::move(c));
    }
  }
  return out;
}

std::vector<SweepSummary> sweeps(const engine::ScenarioResult& result) {
  std::vector<SweepSummary> out;
  std::map<std::pair<std::string, std::string>, size_t> index;
  for (const auto& w : result.workloads) {
    if (w.spec.sweep_of.empty()) continue;
    auto key = std::make_pair(w.spec.sweep_of, w.variant);
    auto [it, added] = index.try_emplace(key, out.size());
    if (added) {
      SweepSummary s;
      s.workload = w.spec.sweep_of;
      s.variant = w.variant;
      s.parameter = w.spec.sweep_parameter;
      out.push_back(std::move(s));
    }
    // A point that was not measured, or that is not history of its series, is left out and
    // named, never counted as zero nor fitted.
    SweepSummary& s = out[it->second];
    const auto p50 = w.latency_at(50);
    std::string reason = results::not_history_reason(w);
    if (reason.empty() && !p50) reason = "no latency measured";
    if (!reason.empty()) {
      s.left_out.push_back({static_cast<double>(w.spec.sweep_value), std::move(reason)});
      continue;
    }
    s.n.push_back(static_cast<double>(w.spec.sweep_value));
    s.cost_us.push_back(static_cast<double>(*p50) / 1000.0);
  }
  for (auto& s : out) {
    s.fit = results::fit_linear(s.n, s.cost_us);
    s.growth = results::growth_exponents(s.n, s.cost_us);
  }
  return out;
}

std::string comparison_line(const std::string& scenario, const VariantComparison& c) {
  const bool ok = c.status == "ok";
  return fmt::format(
      "COMPARE|scenario={}|workload={}|baseline={}|variant={}|metric=rps|baseline_rps={}"
      "|variant_rps={}|ratio={}|pair_min={}|pair_max={}|ci_low={}|ci_high={}|status={}",
      scenario, c.workload, c.baseline, c.variant, ok ? fmt::format("{:.0f}", c.baseline_rps) : "-",
      ok ? fmt::format("{:.0f}", c.variant_rps) : "-", optional(c.ratio), optional(c.pair_min),
      optional(c.pair_max), optional(c.ci_low), optional(c.ci_high), c.status);
}

std::string exponent_text(double exponent) {
  const std::string growth = results::growth_class(exponent);
  for (int digits = 2; digits <= 12; ++digits) {
    const std::string text = fmt::format("{:.{}f}", exponent, digits);
    if (results::growth_class(std::strtod(text.c_str(), nullptr)) == growth) return text;
  }
  return fmt::format("{}", exponent);  // the shortest text that reads back as the exponent
}

std::string sweep_line(const std::string& scenario, const SweepSummary& s) {
  std::string worst_pair = "-";
  if (s.growth) {
    worst_pair =
        fmt::format("{:.0f}-{:.0f}", s.n[s.growth->worst_pair], s.n[s.growth->worst_pair + 1]);
  }
  std::string left_out;
  for (const auto& p : s.left_out) left_out += (left_out.empty() ? "" : ",") + point_value(p.n);
  return fmt::format(
      "SWEEP|scenario={}|workload={}|variant={}|parameter={}|points={}|cost=p50_us|a={}|b={}"
      "|r2={}|exponent={}|worst_exponent={}|worst_pair={}|class={}|left_out={}",
      scenario, s.workload, s.variant, s.parameter, s.n.size(), s.fit ? number(s.fit->a) : "-",
      s.fit ? number(s.fit->b) : "-", s.fit ? number(s.fit->r2, "{:.3f}") : "-",
      s.growth ? exponent_text(s.growth->median) : "-",
      s.growth ? number(s.growth->worst, "{:.2f}") : "-", worst_pair,
      s.growth ? results::growth_class(s.growth->median) : "-", left_out.empty() ? "-" : left_out);
}

std::string left_out_text(const SweepSummary& s) {
  std::string out;
  for (const auto& p : s.left_out) {
    out += fmt::format("{}{} ({})", out.empty() ? "" : ", ", point_value(p.n), p.reason);
  }
  return out;
}

ComparisonText comparison_text(const VariantComparison& c) {
  const bool ok = c.status == "ok";
  ComparisonText t;
  t.ratio = c.ratio ? fmt::format("{:.3f}", *c.ratio) : "-";
  t.interval = c.ci_low && c.ci_high ? fmt::format("{:.3f}-{:.3f}", *c.ci_low, *c.ci_high) : "-";
  t.pairs = c.pair_min && c.pair_max ? fmt::format("{:.3f}-{:.3f}", *c.pair_min, *c.pair_max) : "-";
  // As the result tables write a rate (the COMPARE line above keeps its whole numbers).
  t.variant_rps = ok ? rate_text(c.variant_rps) : "-";
  t.baseline_rps = ok ? rate_text(c.baseline_rps) : "-";
  return t;
}

SweepText sweep_text(const SweepSummary& s) {
  SweepText t{"-", "-", "-", "-"};
  if (s.fit) {
    t.model = fmt::format("p50 = {:.4g} us + {:.4g} us * n", s.fit->a, s.fit->b);
    t.r2 = fmt::format("{:.3f}", s.fit->r2);
  }
  if (s.growth) {
    t.exponent = fmt::format("{} ({})", exponent_text(s.growth->median),
                             results::growth_class(s.growth->median));
    t.worst = fmt::format("{:.0f}->{:.0f}: {:.2f}", s.n[s.growth->worst_pair],
                          s.n[s.growth->worst_pair + 1], s.growth->worst);
  }
  return t;
}

std::string sweep_axis(const std::string& parameter) {
  return parameter == "rate" ? "rate (requests/s offered)" : parameter;
}

std::string analysis_text(const engine::ScenarioResult& result) {
  std::string out;
  for (const auto& c : comparisons(result)) {
    if (c.status != "ok") {
      out += fmt::format("compare {}: {} vs {}: {} (no ratio)\n", c.workload, c.variant, c.baseline,
                         c.status);
      continue;
    }
    const ComparisonText t = comparison_text(c);
    if (!c.ratio) {
      out += fmt::format(
          "compare {}: {} vs {}: no ratio, the baseline completed nothing; {} vs {} ops/s\n",
          c.workload, c.variant, c.baseline, t.variant_rps, t.baseline_rps);
      continue;
    }
    out += fmt::format("compare {}: {} / {} throughput ratio {} (pairs {}{}); {} vs {} ops/s\n",
                       c.workload, c.variant, c.baseline, t.ratio, t.pairs,
                       c.ci_low ? ", 95% CI " + t.interval : "", t.variant_rps, t.baseline_rps);
  }
  for (const auto& s : sweeps(result)) {
    const std::string left_out =
        s.left_out.empty() ? "" : fmt::format("; left out: {}", left_out_text(s));
    if (!s.fit) {
      out += fmt::format("sweep {} [{}] over {}: fewer than two measured points, no model{}\n",
                         s.workload, s.variant, sweep_axis(s.parameter), left_out);
      continue;
    }
    const SweepText t = sweep_text(s);
    out += fmt::format("sweep {} [{}] over {}: {} (R^2 {})", s.workload, s.variant,
                       sweep_axis(s.parameter), t.model, t.r2);
    if (s.growth) out += fmt::format("; exponent {}, worst pair {}", t.exponent, t.worst);
    out += left_out + "\n";
  }
  return out;
}

}  // namespace benchgate::report
