import { render } from "preact";
import "./style.css";
import { staticExport } from "./api.ts";
import { BundleView, EpisodesView } from "./episodes-view.tsx";
import { LiveRunView } from "./live-runs-view.tsx";
import { Link, usePath } from "./router.tsx";
import { RunsView, RunView } from "./runs-view.tsx";
import { ToolView } from "./tool-view.tsx";
import { ToolsView } from "./tools-view.tsx";
import { TracesView } from "./traces-view.tsx";
import { TrajectoryView } from "./trajectory-view.tsx";

const report = staticExport();

function App() {
  const path = usePath();
  return (
    <>
      {report ? (
        // A static export (report.html): one run, nothing to fetch.
        <nav>
          <b>{document.title}</b>
          <Link href={report.path}>Run</Link>
        </nav>
      ) : (
        <nav>
          <b>RLFactory console</b>
          <Link href="/tools">Tools</Link>
          <Link href="/runs">Runs</Link>
          <Link href="/episodes">Episodes</Link>
        </nav>
      )}
      <main>
        <Route path={path} />
      </main>
    </>
  );
}

function Route(props: { path: string }) {
  const parts = props.path.split("/").filter(Boolean).map(decodeURIComponent);
  if (parts.length === 0 || (parts[0] === "tools" && parts.length === 1)) return <ToolsView />;
  if (parts[0] === "runs" && parts.length === 1) return <RunsView />;
  if (parts[0] === "live-runs" && parts.length === 2) return <LiveRunView id={parts[1] as string} />;
  if (parts[0] === "runs" && parts.length === 2) return <RunView run={parts[1] as string} />;
  if (parts[0] === "runs" && parts[2] === "trajectories" && parts.length === 4) {
    return <TrajectoryView run={parts[1] as string} index={parts[3] as string} />;
  }
  if (parts[0] === "tools" && parts.length === 2) return <ToolView name={parts[1] as string} />;
  if (parts[0] === "runs" && parts[2] === "trajectories" && parts[4] === "trace" && parts.length === 5) {
    return <TracesView run={parts[1] as string} index={parts[3] as string} />;
  }
  if (parts[0] === "episodes" && parts.length === 1) return <EpisodesView />;
  if (parts[0] === "bundles" && parts.length === 2) return <BundleView id={parts[1] as string} />;
  return <p class="error">No view at {props.path}</p>;
}

const root = document.getElementById("app");
if (root) render(<App />, root);
