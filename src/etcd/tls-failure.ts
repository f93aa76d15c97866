// A TLS failure between lockstep and etcd, said as an operator can act on it (issue 31). gRPC reports
// these as UNAVAILABLE with OpenSSL's own error string ("ssl3_read_bytes:sslv3 alert bad certificate:...
// SSL alert number 42"), which names neither the flag to fix nor which side refused. The strings matched
// are OpenSSL's and Node's, for the failures a wrong --etcd-* flag or endpoint causes.

const RULES: ReadonlyArray<{ readonly pattern: RegExp; readonly says: string }> = [
  {
    pattern: /alert bad certificate|alert certificate required|SSL alert number (42|116)/i,
    says: 'etcd refused the TLS handshake: it requires a client certificate signed by its CA; give --etcd-cert and --etcd-key (or LOCKSTEP_ETCD_CERT and LOCKSTEP_ETCD_KEY)',
  },
  {
    pattern: /certificate verify failed|unable to (get|verify) (the first|local issuer)|self[- ]signed certificate|alert unknown ca|SSL alert number 48/i,
    says: "etcd's server certificate is not signed by the CA lockstep was given; check --etcd-ca (or LOCKSTEP_ETCD_CA)",
  },
  {
    pattern: /does not match certificate's altnames|ERR_TLS_CERT_ALTNAME_INVALID/i,
    says: "etcd's server certificate does not name the address dialled; dial a name or IP its certificate lists",
  },
  {
    pattern: /wrong version number|packet length too long|http request/i,
    says: 'the endpoint does not speak TLS; leave out --etcd-ca for a plaintext etcd, or check the port',
  },
];

/** The failure in words, or undefined when `message` is not a TLS failure. */
export function tlsFailureOf(message: string): string | undefined {
  return RULES.find((rule) => rule.pattern.test(message))?.says;
}
