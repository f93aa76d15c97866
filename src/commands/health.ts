// `lockstep health --arbiter H:P [--tls-cert F --tls-key F --ca F] [--service NAME] [--json]`: asks one
// arbiter's standard gRPC health service (grpc.health.v1, src/service/health.ts) whether it serves, over
// the same mTLS listener as lock.v1. It is the Deployment's readiness and liveness probe
// (deploy/arbiter-deployment.yaml): kubelet's own gRPC probe speaks no TLS, and the image carries no
// grpc_health_probe, so the image answers its own probe. Exit 0 SERVING; 1 anything else (NOT_SERVING
// while draining, or an unknown service); 2 bad input; 5 the arbiter could not be asked (unreachable,
// refused the handshake, no answer within --timeout).
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import type { Command } from 'commander';
import { BadInput, Refusal } from '../cli-errors.js';
import { type CliIo, ExitCode } from '../cli-io.js';
import { EndpointSyntaxError, parseEndpoint } from '../etcd/endpoint-address.js';
import { readClientTls } from '../lock/remote-arbiter.js';
import { Health, HealthCheckResponse_ServingStatus as Status } from '../gen/grpc/health/v1/health_pb.js';
import { SERVED_SERVICES } from '../service/health.js';

interface HealthOptions {
  arbiter: string;
  tlsCert?: string;
  tlsKey?: string;
  ca?: string;
  service: string;
  timeout: string;
  json?: boolean;
}

const MAX_TIMEOUT_MS = 60_000;

export function registerHealthCommand(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  program
    .command('health')
    .description('Ask one arbiter whether it serves (the standard grpc.health.v1 Check, over its mTLS listener): the probe of deploy/arbiter-deployment.yaml. Exit 0 SERVING; 1 not serving (draining) or an unknown service; 2 bad input; 5 the arbiter could not be asked.')
    .requiredOption('--arbiter <host:port>', 'the arbiter to ask (lockstep serve --listen)')
    .option('--tls-cert <file>', 'a client certificate (PEM) the arbiter\'s --client-ca signed; with --tls-key and --ca')
    .option('--tls-key <file>', 'its private key (PEM)')
    .option('--ca <file>', 'the CA (PEM) that signed the arbiter\'s certificate')
    .option('--service <name>', `the service to ask about: ${SERVED_SERVICES.map((s) => (s === '' ? '"" (the whole server)' : s)).join(', ')}`, '')
    .option('--timeout <ms>', 'how long to wait for the answer', '2000')
    .option('--json', 'print {arbiter, service, status}')
    .action(async (options: HealthOptions) => {
      setExitCode(await health(options, io));
    });
}

async function health(options: HealthOptions, io: CliIo): Promise<number> {
  let address: string;
  try {
    address = parseEndpoint(options.arbiter).replace(/^http:\/\//, '');
  } catch (error) {
    if (!(error instanceof EndpointSyntaxError)) throw error;
    throw new BadInput(`--arbiter ${JSON.stringify(options.arbiter)}: ${error.message}`);
  }
  if (!/^\d+$/.test(options.timeout) || Number(options.timeout) < 1 || Number(options.timeout) > MAX_TIMEOUT_MS) throw new BadInput(`--timeout ${JSON.stringify(options.timeout)} must be a whole number of ms from 1 to ${MAX_TIMEOUT_MS}`);
  const tls = await readClientTls(options);
  if (tls !== undefined && 'refused' in tls) throw new BadInput(tls.refused);
  const transport = createGrpcTransport({ baseUrl: `${tls === undefined ? 'http' : 'https'}://${address}`, ...(tls === undefined ? {} : { nodeOptions: tls }) });
  const client = createClient(Health, transport);
  let status: Status;
  try {
    status = (await client.check({ service: options.service }, { timeoutMs: Number(options.timeout) })).status;
  } catch (error) {
    // The health protocol answers NOT_FOUND for a service the server does not know: an answer, not a failure to ask.
    if (error instanceof ConnectError && error.code === Code.NotFound) return report(io, options, address, 'SERVICE_UNKNOWN', ExitCode.failed);
    const reason = error instanceof Error ? error.message : String(error);
    throw new Refusal(`could not ask ${address}: ${reason}`, ExitCode.refused, options.json === true ? { json: { arbiter: address, service: options.service, status: 'UNREACHABLE', reason } } : {});
  }
  return report(io, options, address, Status[status] ?? String(status), status === Status.SERVING ? ExitCode.ok : ExitCode.failed);
}

function report(io: CliIo, options: HealthOptions, address: string, status: string, code: number): number {
  if (options.json === true) io.out(JSON.stringify({ arbiter: address, service: options.service, status }));
  else io.out(`${address}${options.service === '' ? '' : ` ${options.service}`}: ${status}`);
  return code;
}
