ANSWERS = {"step 1.1 of \"Are the Laleli Mosque and Esma Sultan Mansion located in the same neighborhood?\"":"fact-206a0e","step 2.1 of \"Are the Laleli Mosque and Esma Sultan Mansion located in the same neighborhood?\"":"fact-0b2cd9"}

def find_entity_ddf35e937571(**arguments):
    return "Result: " + ANSWERS.get(arguments.get("query"), "no record")
