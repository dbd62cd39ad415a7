// deploy/'s RBAC matrix (the one the harness checks by SubjectAccessReview) asked of a real cluster
// the way an operator would: `kubectl auth can-i … --as=system:serviceaccount:…`.
import {
  ALLOWED,
  DEPLOY,
  deniedTo,
  describeQuestion,
  serviceAccountGroups,
  serviceAccountUser,
  type Account,
  type AccessQuestion,
} from '@sandbox/kube-harness';
import type { Exec } from './exec';

/** The `kubectl auth can-i` arguments for one question, as `account` (its user and groups). */
export function canIArgs(account: Account, question: AccessQuestion): string[] {
  const namespace = DEPLOY.systemNamespace;
  const resource = question.resource ?? '';
  // kubectl cannot name "every resource of every group"; `*` asks about every core resource, which
  // any rule granting the former also grants, so a `no` to it still proves the denial.
  const typed = resource === '*' || !question.group ? resource : `${resource}.${question.group}`;
  return [
    'auth',
    'can-i',
    question.verb,
    question.name ? `${typed}/${question.name}` : typed,
    ...(question.subresource ? [`--subresource=${question.subresource}`] : []),
    // Without a namespace kubectl would ask about its context's (default); "" is the cluster.
    ...(question.namespace ? ['--namespace', question.namespace] : ['--all-namespaces']),
    `--as=${serviceAccountUser(namespace, account)}`,
    ...serviceAccountGroups(namespace).map((group) => `--as-group=${group}`),
  ];
}

/** kubectl's answer: its first word, `yes` or `no` (exit 0 or 1); anything else is an error. */
export function parseCanI(stdout: string, code: number | null): boolean {
  const word = stdout.trim().split(/\s+/)[0];
  if (word === 'yes' && code === 0) return true;
  if (word === 'no' && code === 1) return false;
  throw new Error(`kubectl auth can-i answered ${JSON.stringify(stdout.trim())} (exit ${code})`);
}

/** Questions asked at once: each is one short kubectl process. */
const CONCURRENCY = 4;

/** The matrix: every grant must be `yes`, every near miss `no`. Returns the mismatches in words. */
export async function canIMatrix(exec: Exec, kubectl: string, kubeconfig: string): Promise<string[]> {
  const asks = DEPLOY.serviceAccounts.flatMap((account) => [
    ...ALLOWED[account].map((question) => ({ account, question, expected: true })),
    ...deniedTo(account).map((question) => ({ account, question, expected: false })),
  ]);
  const wrong: string[] = [];
  const worker = async () => {
    for (let ask = asks.shift(); ask; ask = asks.shift()) {
      const args = ['--kubeconfig', kubeconfig, ...canIArgs(ask.account, ask.question)];
      const result = await exec(kubectl, args, { allowFailure: true, timeoutMs: 30_000 });
      if (parseCanI(result.stdout, result.code) !== ask.expected)
        wrong.push(
          `${ask.account}: ${describeQuestion(ask.question)} should be ${ask.expected ? 'allowed' : 'denied'}`,
        );
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return wrong.sort();
}
