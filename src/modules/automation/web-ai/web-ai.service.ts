// The web-ai skill on the core server: the driver (on the browser server, reached through a client) plus
// what only the core knows, its working directory. Attachments named by the caller are resolved inside it
// (or inside the media directory, where uploads land) before the browser sees them, and code blocks are
// written under it.
import { AppError } from '../../../core/errors.ts';
import { resolveInputFiles, saveBlocks, saveDirectory } from './workspace.ts';
import type { CodeBlock, CodeBody, ExtractBody, SavedFile, SendBody, WebAiApi } from './types.ts';

export interface WebAiWorkspace {
  workingDir(): string;
  /** Other directories attachments may come from (the media directory). */
  inputRoots(): string[];
}

export class WebAiService implements WebAiApi {
  constructor(
    private readonly driver: WebAiApi,
    private readonly ws: WebAiWorkspace,
  ) {}

  private async withFiles<T extends Pick<SendBody, 'files'>>(body: T): Promise<T> {
    if (!body.files?.length) return body;
    const dir = this.ws.workingDir();
    return { ...body, files: await resolveInputFiles(dir, [dir, ...this.ws.inputRoots()], body.files) };
  }

  /** Write the blocks, or say why not; the answer itself is not lost either way (its session stays). */
  private async save(saveTo: string, overwrite: boolean, blocks: CodeBlock[], sessionId?: string): Promise<SavedFile[]> {
    try {
      return await saveBlocks(this.ws.workingDir(), saveTo, blocks, overwrite);
    } catch (err) {
      if (!(err instanceof AppError) || !sessionId) throw err;
      throw new AppError(err.status, err.code, `${err.message} The answer is kept: code-extract session ${sessionId} to try again.`, { ...err.details, sessionId });
    }
  }

  send: WebAiApi['send'] = async (body) => this.driver.send(await this.withFiles(body));
  query: WebAiApi['query'] = async (body) => this.driver.query(await this.withFiles(body));
  poll: WebAiApi['poll'] = (q) => this.driver.poll(q);
  stop: WebAiApi['stop'] = (body) => this.driver.stop(body);
  status: WebAiApi['status'] = (vendor) => this.driver.status(vendor);
  sessions: WebAiApi['sessions'] = () => this.driver.sessions();
  profiles: WebAiApi['profiles'] = () => this.driver.profiles();

  async code(body: CodeBody) {
    const { saveTo, overwrite, ...ask } = body;
    // a directory outside the working directory is refused before anything is asked
    if (saveTo) await saveDirectory(this.ws.workingDir(), saveTo);
    const result = await this.driver.code(await this.withFiles(ask));
    if (!saveTo) return result;
    return { ...result, saved: await this.save(saveTo, overwrite ?? false, result.blocks, result.sessionId) };
  }

  async extract(body: ExtractBody) {
    const { saveTo, overwrite, ...which } = body;
    if (saveTo) await saveDirectory(this.ws.workingDir(), saveTo);
    const result = await this.driver.extract(which);
    if (!saveTo) return result;
    return { ...result, saved: await this.save(saveTo, overwrite ?? false, result.blocks, result.sessionId) };
  }
}
