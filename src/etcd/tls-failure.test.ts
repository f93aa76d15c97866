import { describe, expect, it } from 'vitest';
import { tlsFailureOf } from './tls-failure.js';

describe('TLS failures to etcd, in words', () => {
  it('names the missing client certificate for OpenSSL alert 42 (what etcd --client-cert-auth answers)', () => {
    const grpc = '14 UNAVAILABLE: No connection established. Last error: 807C2B071D7F0000:error:0A000412:SSL routines:ssl3_read_bytes:sslv3 alert bad certificate:../deps/openssl/openssl/ssl/record/rec_layer_s3.c:1601:SSL alert number 42';
    expect(tlsFailureOf(grpc)).toMatch(/requires a client certificate .* --etcd-cert and --etcd-key/);
  });

  it('names --etcd-ca for a server certificate another CA signed, and the port for a plaintext one', () => {
    expect(tlsFailureOf('error:0A000086:SSL routines::certificate verify failed')).toMatch(/check --etcd-ca/);
    expect(tlsFailureOf('error:0A00010B:SSL routines::wrong version number')).toMatch(/does not speak TLS/);
  });

  it('leaves every other failure alone (control)', () => {
    expect(tlsFailureOf('14 UNAVAILABLE: No connection established. Last error: connect ECONNREFUSED 127.0.0.1:2379')).toBeUndefined();
    expect(tlsFailureOf('etcdserver: request timed out')).toBeUndefined();
  });
});
