/**
 * Asking the kernel: is a diagnosis still known, apply its fix N. The kernel side is
 * `jax_nbhelp.shell.frontend`; it answers with one display of RESULT_MIME. What the fix prints
 * arrives as the request's own stream outputs and goes into the card. Requests do not
 * store history, so a fix takes no execution count.
 */

import { Kernel, KernelMessage } from '@jupyterlab/services';

import { IFixResult, IProgress, PROGRESS_MIME, RESULT_MIME } from './bundle';
import { IRunOutput } from './card';

/** The kernel's answer and what was printed while it worked. */
export interface IKernelAnswer {
  result: IFixResult | null;
  outputs: IRunOutput[];
  error: string | null;
  /** The kernel set the request aside (it follows a failed cell of "Run all"). */
  aborted: boolean;
}

/** Python source for a call into `jax_nbhelp.shell.frontend`, arguments as JSON literals. */
export function frontendCall(
  name: 'status' | 'apply',
  ...args: (string | number | boolean | null)[]
): string {
  const literal = args.map(arg =>
    arg === null ? 'None' : typeof arg === 'boolean' ? (arg ? 'True' : 'False') : JSON.stringify(arg)
  );
  return `__import__("jax_nbhelp.shell.frontend").shell.frontend.${name}(${literal.join(', ')})`;
}

/**
 * Run `code` in `kernel` and collect the RESULT_MIME answer and the printed output;
 * `onProgress` hears each PROGRESS_MIME report of a running fix (the first display and
 * its updates).
 */
export async function ask(
  kernel: Kernel.IKernelConnection,
  code: string,
  onProgress: ((progress: IProgress) => void) | null = null
): Promise<IKernelAnswer> {
  const answer: IKernelAnswer = { result: null, outputs: [], error: null, aborted: false };
  const future = kernel.requestExecute({
    code,
    silent: false,
    store_history: false,
    allow_stdin: false,
    stop_on_error: false
  });
  future.onIOPub = (msg: KernelMessage.IIOPubMessage) => {
    if (KernelMessage.isStreamMsg(msg)) {
      const name = msg.content.name === 'stderr' ? 'stderr' : 'stdout';
      const last = answer.outputs[answer.outputs.length - 1];
      if (last && last.name === name) {
        last.text += msg.content.text;
      } else {
        answer.outputs.push({ name, text: msg.content.text });
      }
    } else if (KernelMessage.isDisplayDataMsg(msg) || KernelMessage.isUpdateDisplayDataMsg(msg)) {
      const data = msg.content.data[RESULT_MIME];
      if (data !== undefined) {
        answer.result = data as unknown as IFixResult;
      }
      const progress = msg.content.data[PROGRESS_MIME];
      if (progress !== undefined && onProgress) {
        onProgress(progress as unknown as IProgress);
      }
    } else if (KernelMessage.isErrorMsg(msg)) {
      answer.error = `${msg.content.ename}: ${msg.content.evalue}`;
    }
  };
  const reply = await future.done;
  answer.aborted = (reply?.content.status as string) === 'aborted';
  return answer;
}
