//! Writes the demo game directory: `cargo run -p iron3d-demo --example write -- DIR [SEED] [stress]`.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = args.next().ok_or("usage: write DIR [SEED] [stress]")?;
    let seed = args.next().map_or(Ok(1), |s| s.parse())?;
    let profile = match args.next().as_deref() {
        Some("stress") => iron3d_demo::Profile::Stress,
        _ => iron3d_demo::Profile::Demo,
    };
    let m = iron3d_demo::build(std::path::Path::new(&dir), seed, profile)?;
    println!("{} files, missions {:?}", m.files.len(), m.missions);
    Ok(())
}
