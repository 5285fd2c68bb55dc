// SVG charts; see svg_chart.h.
#include "orchestrator/report/svg_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "orchestrator/report/escape.h"

namespace benchgate::report::svg {
namespace {

constexpr int kWidth = 760;
constexpr int kLeft = 80;
constexpr int kTop = 44;
constexpr int kPlotHeight = 220;
constexpr int kBottom = 44;
constexpr int kHeight = kTop + kPlotHeight + kBottom;

// Colour-blind-safe (Okabe-Ito), dark enough to print.
constexpr const char* kPalette[] = {"#0072b2", "#d55e00", "#009e73", "#cc79a7",
                                    "#e69f00", "#56b4e9", "#000000"};

const char* colour(int index) {
  constexpr int n = sizeof(kPalette) / sizeof(kPalette[0]);
  return kPalette[((index % n) + n) % n];
}

double transform(const Axis& axis, double v) { return axis.log ? std::log10(v) : v; }

bool usable(const Axis& axis, double v) { return std::isfinite(v) && (!axis.log || v > 0); }

struct Range {
  double lo = 0;
  double hi = 1;
};

Range range_of(const Axis& axis, const std::vector<double>& values) {
  if (axis.min != 0 || axis.max != 0) return {transform(axis, axis.min), transform(axis, axis.max)};
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  for (double v : values) {
    if (!usable(axis, v)) continue;
    lo = std::min(lo, transform(axis, v));
    hi = std::max(hi, transform(axis, v));
  }
  if (!std::isfinite(lo)) return {0, 1};
  if (axis.log) {
    lo = std::floor(lo);
    hi = std::ceil(hi);
    if (hi <= lo) hi = lo + 1;
    return {lo, hi};
  }
  if (lo > 0 && lo < hi * 0.5) lo = 0;  // a linear axis that starts at 0 reads honestly
  if (hi <= lo) {
    hi = lo + (lo == 0 ? 1 : std::abs(lo) * 0.1);
  }
  // A margin, so that points at the extremes are not drawn on the frame.
  const double margin = (hi - lo) * 0.05;
  return {lo == 0 ? 0 : lo - margin, hi + margin};
}

std::string plain_number(double v) {
  if (v == 0) return "0";
  const double a = std::abs(v);
  if (a >= 1e9) return fmt::format("{:.3g}G", v / 1e9);
  if (a >= 1e6) return fmt::format("{:.3g}M", v / 1e6);
  if (a >= 1e4) return fmt::format("{:.3g}k", v / 1e3);
  return fmt::format("{:.4g}", v);
}

// Ticks over the range in axis units (transformed for log axes).
std::vector<std::pair<double, std::string>> ticks_of(const Axis& axis, Range r) {
  if (!axis.ticks.empty()) return axis.ticks;
  auto text = [&](double v) { return axis.format ? axis.format(v) : plain_number(v); };
  std::vector<std::pair<double, std::string>> out;
  if (axis.log) {
    for (double e = std::ceil(r.lo); e <= r.hi + 1e-9; e += 1) {
      out.emplace_back(std::pow(10, e), text(std::pow(10, e)));
    }
    return out;
  }
  const double span = r.hi - r.lo;
  const double raw = span / 5;
  const double magnitude = std::pow(10, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (magnitude * m >= raw) {
      step = magnitude * m;
      break;
    }
  }
  if (axis.integer) step = std::max(1.0, std::round(step));
  for (double v = std::ceil(r.lo / step) * step; v <= r.hi + step * 1e-9; v += step) {
    out.emplace_back(std::abs(v) < step * 1e-9 ? 0 : v, text(std::abs(v) < step * 1e-9 ? 0 : v));
  }
  return out;
}

std::string coordinate(double v) { return fmt::format("{:.1f}", v); }

}  // namespace

std::vector<Point> decimate_min_max(const std::vector<Point>& points, size_t buckets) {
  if (buckets == 0 || points.size() <= 2 * buckets) return points;
  double lo = points.front().x;
  double hi = points.front().x;
  for (const auto& p : points) {
    lo = std::min(lo, p.x);
    hi = std::max(hi, p.x);
  }
  const double width = hi > lo ? (hi - lo) / static_cast<double>(buckets) : 1;
  std::vector<Point> out;
  size_t i = 0;
  while (i < points.size()) {
    const auto bucket = static_cast<size_t>(
        std::min<double>(static_cast<double>(buckets - 1), std::floor((points[i].x - lo) / width)));
    size_t low = i;
    size_t high = i;
    size_t j = i;
    for (; j < points.size(); ++j) {
      const auto b = static_cast<size_t>(std::min<double>(static_cast<double>(buckets - 1),
                                                          std::floor((points[j].x - lo) / width)));
      if (b != bucket) break;
      if (points[j].y < points[low].y) low = j;
      if (points[j].y > points[high].y) high = j;
    }
    out.push_back(points[std::min(low, high)]);
    if (low != high) out.push_back(points[std::max(low, high)]);
    i = j;
  }
  return out;
}

std::string render(const Chart& chart) {
  std::vector<double> xs, ys;
  for (const auto& s : chart.series) {
    for (const auto& p : s.points) {
      xs.push_back(p.x);
      ys.push_back(p.y);
    }
  }
  for (const auto& l : chart.lines) {
    xs.insert(xs.end(), {l.x0, l.x1});
    ys.insert(ys.end(), {l.y0, l.y1});
  }
  for (const auto& [band, label] : chart.bands) xs.insert(xs.end(), {band.first, band.second});
  for (const auto& m : chart.markers) xs.push_back(m.x);
  const Range rx = range_of(chart.x, xs);
  const Range ry = range_of(chart.y, ys);
  auto px = [&](double v) {
    return kLeft + (transform(chart.x, v) - rx.lo) / (rx.hi - rx.lo) * kPlotWidth;
  };
  auto py = [&](double v) {
    return kTop + kPlotHeight - (transform(chart.y, v) - ry.lo) / (ry.hi - ry.lo) * kPlotHeight;
  };
  auto inside = [&](double x, double y) {
    return usable(chart.x, x) && usable(chart.y, y) && transform(chart.x, x) >= rx.lo - 1e-9 &&
           transform(chart.x, x) <= rx.hi + 1e-9;
  };

  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" data-chart=\"{}\" "
      "width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\">\n",
      escape(chart.kind), kWidth, kHeight, kWidth, kHeight, escape(chart.title));
  out += fmt::format("<title>{}</title>\n", escape(chart.title));
  out += fmt::format("<text class=\"title\" x=\"{}\" y=\"16\">{}</text>\n", kLeft,
                     escape(chart.title));
  // Bands, then the frame and grid, then the data on top.
  for (const auto& [band, label] : chart.bands) {
    const double a = px(band.first);
    const double b = px(band.second);
    out += fmt::format(
        "<rect class=\"band\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/><text class=\"band\" "
        "x=\"{}\" y=\"{}\">{}</text>\n",
        coordinate(a), kTop, coordinate(std::max(0.0, b - a)), kPlotHeight, coordinate(a + 2),
        kTop + 10, escape(label));
  }
  out += fmt::format("<rect class=\"frame\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>\n",
                     kLeft, kTop, kPlotWidth, kPlotHeight);
  for (const auto& [v, text] : ticks_of(chart.x, rx)) {
    if (!usable(chart.x, v)) continue;
    const double x = px(v);
    if (x < kLeft - 0.5 || x > kLeft + kPlotWidth + 0.5) continue;
    out += fmt::format(
        "<line class=\"grid\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/><text class=\"tick\" "
        "x=\"{0}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>\n",
        coordinate(x), kTop, kTop + kPlotHeight, kTop + kPlotHeight + 14, escape(text));
  }
  for (const auto& [v, text] : ticks_of(chart.y, ry)) {
    if (!usable(chart.y, v)) continue;
    const double y = py(v);
    if (y < kTop - 0.5 || y > kTop + kPlotHeight + 0.5) continue;
    out += fmt::format(
        "<line class=\"grid\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\"/><text class=\"tick\" "
        "x=\"{3}\" y=\"{4}\" text-anchor=\"end\">{5}</text>\n",
        kLeft, coordinate(y), kLeft + kPlotWidth, kLeft - 6, coordinate(y + 4), escape(text));
  }
  out += fmt::format(
      "<text class=\"axis\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n"
      "<text class=\"axis\" x=\"14\" y=\"{}\" text-anchor=\"middle\" "
      "transform=\"rotate(-90 14 {})\">{}</text>\n",
      kLeft + kPlotWidth / 2, kHeight - 8, escape(chart.x.label), kTop + kPlotHeight / 2,
      kTop + kPlotHeight / 2, escape(chart.y.label));

  for (const auto& m : chart.markers) {
    if (!usable(chart.x, m.x)) continue;
    const double x = px(m.x);
    out += fmt::format(
        "<line class=\"marker\" data-marker=\"{0}\" x1=\"{1}\" y1=\"{2}\" x2=\"{1}\" "
        "y2=\"{3}\"/><text class=\"marker\" x=\"{4}\" y=\"{5}\">{0}</text>\n",
        escape(m.label), coordinate(x), kTop, kTop + kPlotHeight, coordinate(x + 3),
        kTop + kPlotHeight - 4);
  }

  // Legend: one row at the top, right of the title.
  int legend_x = kLeft;
  int legend_y = 34;
  auto legend = [&](const std::string& name, const std::string& swatch) {
    out += fmt::format("<g class=\"legend\">{}<text x=\"{}\" y=\"{}\">{}</text></g>\n", swatch,
                       legend_x + 22, legend_y + 4, escape(name));
    legend_x += 30 + static_cast<int>(name.size()) * 7;
  };

  std::set<std::string> legends;
  for (const auto& s : chart.series) {
    std::vector<const Point*> shown;
    for (const auto& p : s.points) {
      if (inside(p.x, p.y)) shown.push_back(&p);
    }
    const char* c = colour(s.colour);
    const char* css = s.style == Style::kFaintLine ? "faint"
                      : s.style == Style::kDashed  ? "dashed"
                      : s.style == Style::kPoints  ? "points"
                                                   : "line";
    if (s.style == Style::kPoints) {
      out += fmt::format(
          "<g class=\"series points\" data-series=\"{}\" data-points=\"{}\" fill=\"{}\">",
          escape(s.name), shown.size(), c);
      for (const Point* p : shown) {
        if (p->marked) {
          out += fmt::format("<rect class=\"marked\" x=\"{}\" y=\"{}\" width=\"8\" height=\"8\"/>",
                             coordinate(px(p->x) - 4), coordinate(py(p->y) - 4));
        } else {
          out += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"3\"/>", coordinate(px(p->x)),
                             coordinate(py(p->y)));
        }
      }
      out += "</g>\n";
    } else {
      std::string coords;
      for (const Point* p : shown) {
        // Appended piece by piece: `(cond ? "" : " ") + std::string` makes GCC 12 warn of its
        // memcpy (-Wrestrict).
        if (!coords.empty()) coords += ' ';
        coords += coordinate(px(p->x));
        coords += ',';
        coords += coordinate(py(p->y));
      }
      out += fmt::format(
          "<polyline class=\"series {}\" data-series=\"{}\" data-points=\"{}\" stroke=\"{}\" "
          "points=\"{}\"/>\n",
          css, escape(s.name), shown.size(), c, coords);
    }
    const std::string legend_text = !s.legend.empty() ? s.legend : s.name;
    if (!legends.insert(legend_text).second) continue;  // one entry per legend text
    const std::string swatch =
        s.style == Style::kPoints
            ? fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"3\" fill=\"{}\"/>", legend_x + 9,
                          legend_y, c)
            : fmt::format(
                  "<line class=\"{}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\"/>", css,
                  legend_x, legend_y, legend_x + 18, legend_y, c);
    legend(legend_text, swatch);
  }
  for (const auto& l : chart.lines) {
    if (!inside(l.x0, l.y0) || !inside(l.x1, l.y1)) continue;
    out += fmt::format(
        "<line class=\"fit\" data-series=\"{}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n",
        escape(l.name), coordinate(px(l.x0)), coordinate(py(l.y0)), coordinate(px(l.x1)),
        coordinate(py(l.y1)));
    legend(l.name, fmt::format("<line class=\"fit\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>",
                               legend_x, legend_y, legend_x + 18, legend_y));
  }
  out += "</svg>\n";
  return out;
}

}  // namespace benchgate::report::svg
