// The drawing area a chart model lays out in: the SVG's size and the margins that hold the axes.
export interface Margins {
  readonly top: number;
  readonly right: number;
  readonly bottom: number;
  readonly left: number;
}

export interface Frame {
  readonly width: number;
  readonly height: number;
  readonly margin: Margins;
}

export const DEFAULT_FRAME: Frame = { width: 560, height: 300, margin: { top: 16, right: 20, bottom: 44, left: 64 } };

export interface Tick {
  readonly value: number;
  /** Position along the axis, px. */
  readonly at: number;
  readonly label: string;
}

/** The plot's extent inside the margins, px. */
export function plotArea(frame: Frame): { x0: number; x1: number; y0: number; y1: number } {
  if (!(frame.width > frame.margin.left + frame.margin.right && frame.height > frame.margin.top + frame.margin.bottom)) {
    throw new RangeError(`chart frame ${frame.width}x${frame.height} leaves no room inside its margins; make it larger`);
  }
  return { x0: frame.margin.left, x1: frame.width - frame.margin.right, y0: frame.height - frame.margin.bottom, y1: frame.margin.top };
}
