// The layers the serve-layers bench (issue 30) leaves out of serve's composition one at a time: what serve
// adds around the arbiter that the in-process bench does not. `none` leaves out nothing, `all` every one.
export const LAYERS = ['none', 'etcd-timing', 'arbiter-metrics', 'call-log', 'quotas', 'policy', 'all'] as const;
export type Layer = (typeof LAYERS)[number];
