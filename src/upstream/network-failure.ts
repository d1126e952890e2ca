import { UpstreamTimeoutError, UpstreamUnreachableError, type UpstreamError } from "../errors/index.js";
import { isLoopbackHost } from "../config/loopback.js";
import { errorCode, isTimeout, isUnreadableReply } from "./retry-policy.js";

/** Whether `label` (an upstream's origin) is on this machine. */
const isLoopbackLabel = (label: string): boolean => URL.canParse(label) && isLoopbackHost(new URL(label).hostname);

/** What went wrong, in words, for the codes a network failure comes with; never a library's error code. */
function describeFailure(code: string | undefined, label: string): { what: string; next: string } {
  switch (code) {
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return { what: `The upstream's host name (${label}) could not be found`, next: "Check the upstream URL for typos, and your network or VPN." };
    case "ECONNREFUSED":
      // On this machine, nothing listens there; a remote provider does not stop "running", so the way there is wrong.
      return isLoopbackLabel(label)
        ? { what: `The upstream ${label} refused the connection`, next: "Start the server on this machine, or fix the port in the upstream URL." }
        : { what: `The upstream ${label} refused the connection`, next: "Check the upstream URL and port, and any proxy on the way (HTTPS_PROXY, NO_PROXY)." };
    case "ECONNRESET":
    case "EPIPE":
    case "UND_ERR_SOCKET":
    case "UND_ERR_CLOSED":
      return { what: `The connection to the upstream ${label} was closed before it answered`, next: "Try again; if it keeps happening, check proxies between you and the upstream." };
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return { what: `The upstream ${label} is not reachable from this network`, next: "Check your network connection, VPN and proxy settings (HTTPS_PROXY, NO_PROXY)." };
    default:
      if (code?.startsWith("ERR_TLS") || code?.includes("CERT") || code === "DEPTH_ZERO_SELF_SIGNED_CERT") {
        return { what: `The TLS connection to the upstream ${label} failed (its certificate was not accepted)`, next: "Check the upstream URL; behind a TLS-inspecting proxy, set NODE_EXTRA_CA_CERTS to its CA." };
      }
      return { what: `The upstream ${label} could not be reached`, next: "Check your network and the upstream URL, then run `gateway doctor`." };
  }
}

/**
 * Turns an undici failure into the upstream error the rest of the gateway knows (unreachable, or a timeout).
 * `midReply` says the headers had come and the body broke off.
 */
export function toUpstreamError(error: unknown, upstream: string, label: string, midReply?: string): UpstreamError {
  if (isTimeout(error)) {
    const phase = errorCode(error) === "UND_ERR_CONNECT_TIMEOUT" ? "accept the connection" : midReply ? "send the rest of its reply" : "answer";
    return new UpstreamTimeoutError(upstream, `The upstream ${label} did not ${phase} in time. Try again, or raise the timeouts in the gateway config.`, { cause: error });
  }
  if (midReply) return new UpstreamUnreachableError(upstream, `The connection to the upstream ${label} broke ${midReply}. Try again.`, { cause: error });
  const proxyStatus = /^Proxy response \((\d+)\)/.exec((error as Error | undefined)?.message ?? "")?.[1];
  if (proxyStatus) {
    // The proxy's URL is left out on purpose: it may carry a user name and password.
    return new UpstreamUnreachableError(
      upstream,
      `The HTTP proxy (HTTPS_PROXY) refused the tunnel to ${label} with status ${proxyStatus}. Check the proxy, or add the upstream's host to NO_PROXY.`,
      { cause: error },
    );
  }
  if (isUnreadableReply(error)) {
    return new UpstreamUnreachableError(
      upstream,
      `The upstream ${label} sent a reply the gateway cannot read (such as an unrequested 100 Continue). It was not sent again, since the upstream had already answered.`,
      { cause: error },
    );
  }
  const { what, next } = describeFailure(errorCode(error), label);
  return new UpstreamUnreachableError(upstream, `${what}. ${next}`, { cause: error });
}
