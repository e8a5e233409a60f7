//! The roster: every agent, kept in ascending id order in one array, so a tick visits
//! them by position (no lookups) and a lookup by id is a binary search. Each agent has
//! a runtime [`Shadow`] beside it — what the plugin last told the engine about it — that
//! is never saved: a restored roster starts with empty shadows, so the first tick after
//! a hot swap tells the engine everything again.
//!
//! Saved form: the agents as a sequence; a sequence whose ids do not strictly ascend is
//! refused (a bad state blob, never a silently reordered one).

use crate::behavior::Agent;
use iron3d_abi::MotionRequest;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// What the plugin last told the engine about one agent (runtime only).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Shadow {
    /// The motion request sent last.
    pub sent: Option<MotionRequest>,
    /// `(target, path revision)` published last.
    pub published: Option<(u32, u32)>,
}

/// Agents ascending by id, each with its [`Shadow`].
#[derive(Clone, Debug, Default)]
pub struct Roster {
    agents: Vec<Agent>,
    shadows: Vec<Shadow>,
}

impl PartialEq for Roster {
    /// Equal when the agents are (the shadows are runtime state).
    fn eq(&self, other: &Self) -> bool {
        self.agents == other.agents
    }
}

impl Roster {
    /// The position of agent `id`.
    pub fn position(&self, id: u32) -> Option<usize> {
        self.agents.binary_search_by_key(&id, |a| a.id).ok()
    }

    /// Agent `id`.
    pub fn get(&self, id: u32) -> Option<&Agent> {
        self.position(id).map(|i| &self.agents[i])
    }

    /// Agent `id`, mutably.
    pub fn get_mut(&mut self, id: u32) -> Option<&mut Agent> {
        self.position(id).map(|i| &mut self.agents[i])
    }

    /// Whether agent `id` is on the roster.
    pub fn contains(&self, id: u32) -> bool {
        self.position(id).is_some()
    }

    /// Puts `agent` on the roster in id order (replacing one with the same id, whose
    /// shadow is cleared); answers the replaced agent.
    pub fn insert(&mut self, agent: Agent) -> Option<Agent> {
        match self.agents.binary_search_by_key(&agent.id, |a| a.id) {
            Ok(i) => {
                self.shadows[i] = Shadow::default();
                Some(std::mem::replace(&mut self.agents[i], agent))
            }
            Err(i) => {
                self.agents.insert(i, agent);
                self.shadows.insert(i, Shadow::default());
                None
            }
        }
    }

    /// Takes agent `id` off the roster.
    pub fn remove(&mut self, id: u32) -> Option<Agent> {
        let i = self.position(id)?;
        self.shadows.remove(i);
        Some(self.agents.remove(i))
    }

    /// Agents on the roster.
    pub fn len(&self) -> usize {
        self.agents.len()
    }

    /// Whether the roster is empty.
    pub fn is_empty(&self) -> bool {
        self.agents.is_empty()
    }

    /// The agents, ascending by id.
    pub fn agents(&self) -> &[Agent] {
        &self.agents
    }

    /// The agents, ascending by id, mutably (ids must not be changed).
    pub fn agents_mut(&mut self) -> &mut [Agent] {
        &mut self.agents
    }

    /// The agent and shadow at `position`.
    pub fn at_mut(&mut self, position: usize) -> Option<(&mut Agent, &mut Shadow)> {
        Some((
            self.agents.get_mut(position)?,
            self.shadows.get_mut(position)?,
        ))
    }

    /// The shadow at `position`.
    pub fn shadow_mut(&mut self, position: usize) -> Option<&mut Shadow> {
        self.shadows.get_mut(position)
    }

    /// Clears every shadow (the engine must be told everything again).
    pub fn forget_shadows(&mut self) {
        self.shadows.fill(Shadow::default());
    }
}

impl FromIterator<Agent> for Roster {
    /// A roster of `agents` (a later agent replaces an earlier one with the same id).
    fn from_iter<T: IntoIterator<Item = Agent>>(agents: T) -> Self {
        let mut r = Roster::default();
        for a in agents {
            r.insert(a);
        }
        r
    }
}

impl Serialize for Roster {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.agents.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Roster {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let agents = Vec::<Agent>::deserialize(d)?;
        if let Some(w) = agents.windows(2).find(|w| w[0].id >= w[1].id) {
            return Err(serde::de::Error::custom(format!(
                "agents out of order: id {} before id {}",
                w[0].id, w[1].id
            )));
        }
        let shadows = vec![Shadow::default(); agents.len()];
        Ok(Roster { agents, shadows })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec2;

    fn agent(id: u32) -> Agent {
        Agent::new(id, Some(0), 0, Vec2::ZERO)
    }

    #[test]
    fn agents_stay_in_id_order_with_their_shadows() {
        let mut r: Roster = [agent(5), agent(1), agent(3)].into_iter().collect();
        let ids: Vec<u32> = r.agents().iter().map(|a| a.id).collect();
        assert_eq!(ids, [1, 3, 5]);
        r.shadow_mut(1).unwrap().published = Some((7, 2));
        r.insert(agent(2));
        assert_eq!(r.position(3), Some(2));
        assert_eq!(r.at_mut(2).unwrap().1.published, Some((7, 2)));
        assert!(r.remove(1).is_some());
        assert_eq!(r.at_mut(1).unwrap().1.published, Some((7, 2)));
        assert!(r.remove(1).is_none());
        assert_eq!(r.len(), 3);
        // Replacing an agent clears its shadow.
        r.insert(agent(3));
        assert_eq!(r.at_mut(1).unwrap().1.published, None);
    }

    #[test]
    fn the_saved_form_keeps_agents_and_drops_shadows() {
        let mut r: Roster = [agent(2), agent(9)].into_iter().collect();
        r.shadow_mut(0).unwrap().sent = Some(MotionRequest::stop());
        let bytes = postcard::to_allocvec(&r).unwrap();
        let back: Roster = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(back, r);
        assert_eq!(back.shadows, vec![Shadow::default(); 2]);
        // Out-of-order ids are refused.
        let bad = postcard::to_allocvec(&vec![agent(9), agent(2)]).unwrap();
        assert!(postcard::from_bytes::<Roster>(&bad).is_err());
        let dup = postcard::to_allocvec(&vec![agent(2), agent(2)]).unwrap();
        assert!(postcard::from_bytes::<Roster>(&dup).is_err());
    }
}
