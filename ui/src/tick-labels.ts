import type uPlot from "uplot";

/** How far apart, in px, two labels stay so that they never read as one. */
const GAP = 6;
/** From the plot's edge to a label: below the tick marks (uPlot's default 10 px), and clear of the value axis's lowest label. */
const FROM_PLOT = { x: 14, y: 6 };

/** A tick label from its value and the distance between ticks (seconds on the time axis). */
export type TickFormat = (value: number, step: number) => string;

type Box = Pick<DOMRect, "left" | "right" | "top" | "bottom">;
const apart = (a: Box, b: Box): boolean => a.right + GAP <= b.left || b.right + GAP <= a.left || a.bottom + GAP <= b.top || b.bottom + GAP <= a.top;
const inside = (a: Box, b: Box): boolean => a.left >= b.left && a.right <= b.right && a.top >= b.top && a.bottom <= b.bottom;

/**
 * A chart's tick labels as page text instead of canvas text. uPlot still chooses the ticks and draws them and the
 * grid; each label is an element in the page's font and colours, and one that would come closer than `GAP` to
 * another, or stick out of the chart, is left out. uPlot's own labels could overlap (a date line under the first
 * tick ran into the next one) and could be cut at the chart's edge. Put `values("x")` and `values("y")` in the
 * axes' options and `draw` in the chart's draw hooks.
 */
export function tickLabels(formats: Record<"x" | "y", TickFormat>) {
  const layer = document.createElement("div");
  layer.className = "tick-labels";
  layer.setAttribute("aria-hidden", "true");
  const ticks = { x: { splits: [] as number[], step: 0 }, y: { splits: [] as number[], step: 0 } };
  return {
    /** uPlot's `values` for an axis: it keeps the ticks for `draw` and has uPlot draw no text. */
    values:
      (axis: "x" | "y"): uPlot.Axis.DynamicValues =>
      (_u, splits, _axisIdx, _space, step) => {
        ticks[axis] = { splits, step };
        return splits.map(() => null);
      },
    /** Puts a label at each tick, then leaves out those that collide or stick out, value axis first. */
    draw(u: uPlot): void {
      const plot = u.over;
      if (layer.parentElement !== plot.parentElement) plot.parentElement!.append(layer);
      const labels = (["y", "x"] as const).flatMap((axis) =>
        ticks[axis].splits.map((value) => {
          const label = document.createElement("span");
          label.className = axis;
          label.textContent = formats[axis](value, ticks[axis].step);
          const at = u.valToPos(value, axis);
          label.style.left = `${plot.offsetLeft + (axis === "x" ? at : -FROM_PLOT.y)}px`;
          label.style.top = `${plot.offsetTop + (axis === "x" ? plot.offsetHeight + FROM_PLOT.x : at)}px`;
          return label;
        }),
      );
      layer.replaceChildren(...labels);
      const bounds = layer.getBoundingClientRect();
      const boxes = labels.map((label) => label.getBoundingClientRect());
      const kept: Box[] = [];
      for (const [i, box] of boxes.entries()) {
        if (inside(box, bounds) && kept.every((other) => apart(box, other))) kept.push(box);
        else labels[i]!.remove();
      }
    },
  };
}
