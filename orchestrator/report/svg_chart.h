// Line and point charts as inline SVG, written by the project: no charting library, nothing
// fetched when a report is viewed, the same bytes for the same data (tests count series and
// points). docs/REPORTS.md says why this and not a JavaScript library.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace benchgate::report::svg {

struct Point {
  double x = 0;
  double y = 0;
  bool marked = false;  // drawn as a distinct marker (a baseline run in a history)
};

enum class Style {
  kLine,       // a polyline
  kFaintLine,  // a thin, pale polyline (each repetition beside the merged curve)
  kDashed,     // a dashed polyline (the baseline)
  kPoints,     // markers only (sweep points, history runs)
};

struct Series {
  std::string name;  // legend text and data-series attribute
  Style style = Style::kLine;
  int colour = 0;  // index into the palette
  std::vector<Point> points;
  // Legend text; empty: `name`. Series with the same legend text share one entry.
  std::string legend;
};

struct Axis {
  std::string label;
  bool log = false;  // base 10; points at or below 0 are left out of a log axis
  // Fixed range; both 0: from the data.
  double min = 0;
  double max = 0;
  // Tick positions with their text; empty: chosen from the range, written by `format`.
  std::vector<std::pair<double, std::string>> ticks;
  std::function<std::string(double)> format;
  bool integer = false;  // ticks on whole numbers only (run ids)
};

struct Chart {
  std::string kind;   // data-chart attribute: spectrum, throughput, latency, ...
  std::string title;  // drawn above the plot
  Axis x;
  Axis y;
  std::vector<Series> series;
  // x ranges shaded behind the data (measured windows of a timeline), with a label each.
  std::vector<std::pair<std::pair<double, double>, std::string>> bands;
  // A straight line from (x0, y0) to (x1, y1) in data units (a sweep's fit), with a legend.
  struct Line {
    double x0, y0, x1, y1;
    std::string name;
  };
  std::vector<Line> lines;
  // Vertical lines across the plot at x (the change points of a history), with a label each.
  struct Marker {
    double x;
    std::string label;
  };
  std::vector<Marker> markers;
};

// The <svg> element (XHTML-compatible markup; every text escaped with report::escape).
std::string render(const Chart& chart);

// A long series reduced to at most 2 * buckets points: for each bucket of x (a pixel column),
// the points with the least and the greatest y, in x order, so spikes and stalls survive.
// Shorter series come back unchanged.
std::vector<Point> decimate_min_max(const std::vector<Point>& points, size_t buckets);

// The plot's width in pixels (the bucket count that decimation aims at).
constexpr int kPlotWidth = 600;

}  // namespace benchgate::report::svg
