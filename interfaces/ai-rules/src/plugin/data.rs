//! Reading the mission's data: `Behavior.ini` (its rules and ore capacity,
//! PD-AI-CONFIG-KEYS), the clans and their script packages,
//! the placed objects' SuperAI slots, `Objectives.txt`, `Orders.txt`, `BuildDat.lst`,
//! unit DAT class words, and the agent of each object that joins the game.

use super::*;

fn is_dat(prototype: &[u8]) -> bool {
    prototype.len() > 4 && prototype[prototype.len() - 4..].eq_ignore_ascii_case(b".dat")
}

/// Reads a mission file: `Ok(None)` when absent.
type ReadFile<'r> = dyn Fn(&str) -> Result<Option<Vec<u8>>, PluginError> + 'r;

/// A clan's package: `<base>.scr` (`.scr` appended when the base has no extension)
/// and `<base>.var`, else the shared `MISSIONS\SCRIPTS\varset.var`. `None` when the
/// base is empty or the `.scr` is absent; a broken file is an error.
fn load_package(
    n: usize,
    clan: &iron3d_tma::Clan,
    read: &ReadFile<'_>,
) -> Result<Option<ScriptPackage>, PluginError> {
    let base = match &clan.body {
        iron3d_tma::ClanBody::Standard {
            resource_path_1, ..
        } => resource_path_1.as_bytes(),
        iron3d_tma::ClanBody::Spatial { first_resource, .. } => first_resource.as_bytes(),
    };
    let base = String::from_utf8_lossy(base).replace('\\', "/");
    if base.is_empty() {
        return Ok(None);
    }
    let has_ext = base.rsplit('/').next().is_some_and(|f| f.contains('.'));
    let (stem, scr) = if has_ext {
        (
            base.rsplit_once('.')
                .map_or(base.clone(), |(s, _)| s.to_owned()),
            base.clone(),
        )
    } else {
        (base.clone(), format!("{base}.scr"))
    };
    let name = String::from_utf8_lossy(clan.name.as_bytes()).into_owned();
    let broken = |file: &str, source: iron3d_aux::AuxError| {
        PluginError::new(
            ErrorKind::INVALID,
            error_chain(&crate::AiError::Package {
                clan: n,
                name: name.clone(),
                file: file.to_owned(),
                source: Box::new(source),
            }),
        )
    };
    let Some(bytes) = read(&scr)? else {
        tracing::info!(target: "ai.log", clan = n, file = scr.as_str(), "no script package: the clan has no SuperAI slot");
        return Ok(None);
    };
    let script = iron3d_aux::Script::parse(&bytes).map_err(|e| broken(&scr, e))?;
    let var = format!("{stem}.var");
    let shared = "MISSIONS/SCRIPTS/varset.var";
    let (source, bytes) = match read(&var)? {
        Some(b) => (var, b),
        None => match read(shared)? {
            Some(b) => (shared.to_owned(), b),
            None => {
                tracing::warn!(target: "ai.log", clan = n, "neither {var} nor {shared}: the package does not load");
                return Ok(None);
            }
        },
    };
    let varset = iron3d_aux::Varset::parse(&bytes).map_err(|e| broken(&source, e))?;
    Ok(Some(ScriptPackage {
        script,
        varset,
        varset_source: source,
    }))
}

impl AiPlugin {
    /// Loads the clans' packages, the records, the objectives and `BuildDat.lst`.
    pub(super) fn load_data(&mut self, host: &Host<'_>) -> Result<(), PluginError> {
        let read = |name: &str| match host.read_mission_file(name) {
            Ok(b) => Ok(Some(b)),
            Err(e) if e.kind == ErrorKind::NOT_FOUND => Ok(None),
            Err(e) => Err(e),
        };
        let ini = read(BEHAVIOR_INI)?;
        self.data.config = Some(
            BehaviorConfig::read(ini.as_deref())
                .map_err(|e| PluginError::from_error(ErrorKind::INVALID, &e))?,
        );
        let Some(tma_bytes) = read("data.tma")? else {
            tracing::info!(target: "ai.log", "no data.tma: no clans, no SuperAI");
            return Ok(());
        };
        let tma = iron3d_tma::Tma::parse(&tma_bytes)
            .map_err(|e| PluginError::new(ErrorKind::INVALID, format!("data.tma: {e}")))?;
        let mut table = SuperAiTable::default();
        let mut clans = Vec::new();
        for (n, clan) in tma.clans.iter().enumerate() {
            let package = load_package(n, clan, &read)?;
            if n >= crate::superai::SUPER_AI_SLOTS {
                tracing::warn!(target: "ai.log", clan = n,
                    "clan record beyond the 64 SuperAI slots: no slot reaches it");
            }
            let ai = SuperAi::create(n, clan.name.as_bytes(), clan.anchor_f32(), package);
            for b in ai.base.iter().filter(|b| b.warns()) {
                tracing::warn!(target: "ai.log", clan = n, anchor = b.anchor,
                    "clan anchor above 10,000: AI creation goes on");
            }
            table.clans.push(ai);
            clans.push(ClanInfo {
                name: clan.name.as_bytes().to_vec(),
                hostile: Vec::new(),
            });
        }
        for (n, clan) in tma.clans.iter().enumerate() {
            for r in &clan.relations {
                if hostile(r.value) {
                    if let Some(m) = clans
                        .iter()
                        .position(|c| c.name == r.other_clan_name.as_bytes())
                    {
                        clans[n].hostile.push(m as u32);
                    }
                }
            }
            clans[n].hostile.sort_unstable();
            clans[n].hostile.dedup();
        }
        self.data.records = tma
            .objects
            .iter()
            .map(|o| {
                (
                    o.resource_name.as_bytes().to_ascii_uppercase(),
                    o.raw_after_resource,
                )
            })
            .collect();
        self.data.table = table;
        self.data.clans = clans;
        if let Some(bytes) = read(OBJECTIVES_FILE)? {
            let o = Objectives::parse(&bytes, OBJECTIVES_FILE)
                .map_err(|e| PluginError::from_error(ErrorKind::INVALID, &e))?;
            tracing::info!(target: "ai.log", clan = o.clan, objectives = o.goals.len(), "objectives loaded");
            self.data.objectives = Some(o);
        }
        if let Some(bytes) = read(iron3d_config::orders::ORDERS_FILE)? {
            self.data.orders =
                iron3d_config::orders::parse(&bytes, iron3d_config::orders::ORDERS_FILE)
                    .map_err(|e| PluginError::from_error(ErrorKind::INVALID, &e))?
                    .into_iter()
                    .map(|(k, [x, y])| (k, Vec2::new(x, y)))
                    .collect();
        }
        if let Some(bytes) = read("BuildDat.lst")? {
            let b = iron3d_config::BuildDat::parse(&bytes, "BuildDat.lst")
                .map_err(|e| PluginError::new(ErrorKind::INVALID, format!("{e}")))?;
            for c in b.categories() {
                self.data.build.insert(c.mask, c.units.clone());
            }
        }
        Ok(())
    }

    /// The class word of objects made from `prototype` (0: not a unit DAT), cached.
    pub(super) fn class_of(&mut self, host: &Host<'_>, prototype: &[u8]) -> u32 {
        let key = prototype.to_ascii_uppercase();
        if let Some(c) = self.scratch.classes.get(&key) {
            return *c;
        }
        let class = if is_dat(prototype) {
            let path = String::from_utf8_lossy(prototype).replace('\\', "/");
            match host
                .read_mission_file(&path)
                .map_err(|e| e.to_string())
                .and_then(|b| iron3d_unitdat::UnitDat::parse(&b).map_err(|e| e.to_string()))
            {
                Ok(dat) => dat.header.class_word(),
                Err(e) => {
                    tracing::warn!(target: "ai.log", prototype = path.as_str(), error = e.as_str(),
                        "unit DAT unreadable: objects made from it have no behaviour");
                    0
                }
            }
        } else {
            0
        };
        self.scratch.classes.insert(key, class);
        class
    }

    /// Makes the agent of a new object.
    pub(super) fn adopt(
        &mut self,
        host: &mut Host<'_>,
        object: ObjectRef,
    ) -> Result<(), PluginError> {
        let info = host.object(object)?;
        if info.mirror || self.saved.agents.contains(info.id) {
            return Ok(());
        }
        let prototype = host.prototype(object)?;
        let class = self.class_of(host, &prototype);
        let upper = prototype.to_ascii_uppercase();
        // PD-AI-CLAN.
        let record = ((info.class.wrapping_sub(1)) as usize)
            .checked_mul(4096)
            .and_then(|b| b.checked_add(info.index as usize));
        let record = record
            .filter(|_| !self.saved.loaded_seen && info.owner == 0)
            .filter(|&r| {
                self.data
                    .records
                    .get(r)
                    .is_some_and(|(name, _)| *name == upper)
            });
        let from_record = record.map(|r| self.data.records[r].1);
        let clan = match from_record {
            Some(s) => Some(s),
            None => host
                .property(object, CLAN_ID.as_bytes())?
                .map(|v| CLAN_ID.value(v)),
        };
        let mut agent = Agent::new(info.id, clan, class, ground(info.position));
        if agent.role.mobile() {
            agent.order = record
                .and_then(|r| self.data.orders.get(&r).copied())
                .map(Order::Move);
        }
        if let Some(o) = self
            .saved
            .pending_orders
            .remove(&(object.slot, object.generation))
        {
            agent.order = Some(Order::Move(o));
        }
        let life = host
            .property(object, LIFE_STATE.as_bytes())?
            .map(|v| LIFE_STATE.value(v));
        agent.life = life.unwrap_or(0);
        agent.max_life = life.unwrap_or(0);
        if class != 0 {
            let ore = ore_start(class, host.property(object, CURRENT_ORE.as_bytes())?);
            agent.ore = ore.current as f32;
            agent.max_ore = ore.maximum as f32;
            // PD-AI-CONFIG-KEYS: a transport carries at most `OreCapacity` when written.
            let config = self.data.config.unwrap_or_default();
            if let Some(cap) = config.ore_capacity_for(agent.role) {
                agent.max_ore = cap;
                agent.ore = agent.ore.min(cap);
            }
        }
        // Distributor membership (FORMATS §13.12).
        if let Some(slot) = clan {
            let table = &self.data.table;
            if joins(slot, |n| table.get(n).is_some(), class) {
                if let Some(c) = self.saved.clans.get_mut(slot as usize) {
                    c.distributor.add(info.id, false);
                }
            }
        }
        if profile_for(class) == Some(Profile::Plant) {
            self.saved.plants.entry(info.id).or_default();
        }
        self.saved.agents.insert(agent);
        Ok(())
    }
}
