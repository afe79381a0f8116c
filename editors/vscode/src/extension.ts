// The xlate client: starts `xlate lsp` on stdio for CUDA, HIP and Metal files and passes the
// `xlate.*` settings through. Everything else (hover, diagnostics, actions) is the server's.
import * as vscode from "vscode";
import { LanguageClient, LanguageClientOptions, ServerOptions } from "vscode-languageclient/node";

let client: LanguageClient | undefined;

function settings(): Record<string, unknown> {
  const c = vscode.workspace.getConfiguration("xlate");
  return {
    backends: c.get("backends"),
    select: c.get("select"),
    ignore: c.get("ignore"),
    passBudgetSeconds: c.get("passBudgetSeconds"),
  };
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const command = vscode.workspace.getConfiguration("xlate").get<string[]>("command") ?? ["xlate", "lsp"];
  const server: ServerOptions = { command: command[0], args: command.slice(1) };
  const options: LanguageClientOptions = {
    documentSelector: [
      { scheme: "file", language: "cuda-cpp" },
      { scheme: "file", language: "hip" },
      { scheme: "file", language: "metal" },
    ],
    initializationOptions: { xlate: settings() },
  };
  client = new LanguageClient("xlate", "xlate", server, options);
  await client.start();

  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (event.affectsConfiguration("xlate") && client) {
        await client.sendNotification("workspace/didChangeConfiguration", { settings: { xlate: settings() } });
      }
    }),
    vscode.commands.registerCommand("xlate.lookupPrompt", async () => {
      const query = await vscode.window.showInputBox({ prompt: "xlate: look up a CUDA, HIP, Metal, Triton or MLX name" });
      if (!query || !client) {
        return;
      }
      const answer = (await client.sendRequest("workspace/executeCommand", {
        command: "xlate.lookup",
        arguments: [query],
      })) as { found: boolean; text: string };
      const doc = await vscode.workspace.openTextDocument({ content: answer.text || `no match for ${query}`, language: "markdown" });
      await vscode.window.showTextDocument(doc, { preview: true });
    }),
  );
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
