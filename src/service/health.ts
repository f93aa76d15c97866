// The standard gRPC health service (grpc.health.v1), so a load balancer, Kubernetes' grpc probe or
// grpc_health_probe can ask an arbiter whether to send it calls. SERVING until a shutdown starts, then
// NOT_SERVING while calls in flight finish (server.ts).
import { Code, ConnectError, type ServiceImpl } from '@connectrpc/connect';
import { Health, HealthCheckResponse_ServingStatus as Status } from '../gen/grpc/health/v1/health_pb.js';

export const SERVED_SERVICES = ['', 'lockstep.lock.v1.LockService', 'lockstep.admin.v1.AdminService'] as const;

export class HealthState {
  #serving = true;
  #watchers = new Set<() => void>();

  get status(): Status {
    return this.#serving ? Status.SERVING : Status.NOT_SERVING;
  }

  stopServing(): void {
    this.#serving = false;
    for (const wake of this.#watchers) wake();
  }

  changed(signal: AbortSignal): Promise<void> {
    return new Promise((done) => {
      const wake = (): void => {
        this.#watchers.delete(wake);
        done();
      };
      this.#watchers.add(wake);
      signal.addEventListener('abort', wake, { once: true });
    });
  }
}

function known(service: string): void {
  if (!(SERVED_SERVICES as readonly string[]).includes(service)) throw new ConnectError(`unknown service ${JSON.stringify(service.slice(0, 100))}; this server serves ${SERVED_SERVICES.filter((s) => s !== '').join(', ')}`, Code.NotFound);
}

export function healthServiceImpl(state: HealthState): ServiceImpl<typeof Health> {
  return {
    check: (request) => {
      known(request.service);
      return { status: state.status };
    },
    async *watch(request, context) {
      known(request.service);
      let last: Status | undefined;
      while (!context.signal.aborted) {
        if (state.status !== last) {
          last = state.status;
          yield { status: last };
        }
        if (last === Status.NOT_SERVING) return;
        await state.changed(context.signal);
      }
    },
  };
}
